// attnscope — the options that choose an input (synthetic scenario today; text and tensors join later),
// shared by run, bench and spectrum so every command reads inputs the same way.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "core/variants/variant.h"

namespace attnscope::cli {

/// Where the Q, K, V of a command come from.
struct InputOptions {
    std::string data = "gaussian";  // scenario id
    int n = 256;                    // sequence length
    int heads = 4;                  // H
    int dim = 64;                   // d
    int value_dim = 0;              // dv (0 = d)
    double temperature = 1.0;       // logits divided by T
    uint64_t seed = 0;              // scenario seed
};

/// Registers --data, --n, --heads, --dim, --value-dim, --temperature, --seed on `sub`.
void add_input_options(CLI::App& sub, InputOptions& options);

/// Builds the input; throws Error on bad values (n ≤ 0, unknown scenario, ...).
Heads load_input(const InputOptions& options);

/// Parses "NAME=VALUE" (or "VARIANT.NAME=VALUE"); throws Error when there is no '='.
std::pair<std::string, std::string> split_assignment(const std::string& text);

/// Throws Error unless `path` can be created for writing (checked before long computations).
void require_writable(const std::string& path);

}  // namespace attnscope::cli
