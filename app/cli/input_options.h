// attnscope — the options that choose an input, shared by every command that reads one:
// text through the encoder (--text / --text-file), the user's tensors (--tensors), or a synthetic scenario.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/text_input.h"
#include "core/session/experiment.h"
#include "core/session/metric_sweep.h"
#include <map>

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
    std::map<std::string, int> structure;  // --band, --period, --clusters, --rank, --hubs as given (name → value)
    std::string text;               // --text: UTF-8 text through the encoder
    bool has_text = false;          // --text was given (it may be the empty string)
    std::string text_file;          // --text-file: the same, read from a file
    std::string model;              // --model: minilm (empty), smollm2, a BERT folder or a .gguf file (resolve_model)
    int layer = 0;                  // --layer L of the encoder
    int head = -1;                  // --head H (−1: all heads)
    bool truncate = false;          // --truncate: cut text to the model's max positions
    std::string tensors;            // --tensors: .safetensors file or folder of q/k/v.npy
};

/// Which kind of input the options select.
enum class InputKind {
    Synthetic,  // a seeded scenario (--data)
    Text,       // --text or --text-file through the encoder
    Tensors,    // --tensors
};

/// An input plus what the text path knows beyond the Heads.
struct LoadedInput {
    Heads heads;                  // Q, K, V (and tokens, X)
    InputKind kind = InputKind::Synthetic;
    std::vector<int> token_ids;   // text only: vocabulary ids [CLS] … [SEP]
    std::string model_dir;        // text only: the model folder or GGUF file used
    int layer = 0, head = -1;     // text only: the encoder layer and head (−1 all)
    bool truncated = false;       // text only: cut to max positions
    double load_ms = 0;           // text only: model load wall time (0 when already loaded)
    double encode_ms = 0;         // text only: tokenizer + encoder (layers 0 … layer) wall time
};

/// Registers --data, --n, --heads, --dim, --value-dim, --temperature, --seed and --text, --text-file,
/// --model, --layer, --head, --truncate, --tensors on `sub`.
void add_input_options(CLI::App& sub, InputOptions& options);

/// What every command that runs variant instances on one input takes.
struct RunSelection {
    std::vector<std::string> variants;  // --variant lists (kVariantSpecRule)
    std::vector<std::string> sets;      // --set NAME=VALUE or VARIANT.NAME=VALUE
    InputOptions input;
    bool causal = false;                // --causal
    std::string backend = "auto";       // --backend
};

/// Registers --variant (help: kVariantSpecRule followed by `variant_note`), --set, the input options, --causal
/// (help `causal_help`) and --backend on `sub`; returns the --variant option (e.g. to make it required).
CLI::Option* add_run_selection_options(CLI::App& sub, RunSelection& s, const std::string& variant_note,
                                       const char* causal_help);

/// The kind the options select; throws Error when text and tensors (or --text and --text-file) are mixed.
InputKind input_kind(const InputOptions& options);

/// The model path text input uses: --model resolved (resolve_model: the encoder's folder by default).
std::string model_dir_of(const InputOptions& options);

/// Builds the input; throws Error on bad values (n ≤ 0, unknown scenario, missing model, bad file, ...).
LoadedInput load_input_full(const InputOptions& options);

/// Builds the input's Heads only (see load_input_full).
Heads load_input(const InputOptions& options);

/// The same input at seed offset `seed` and, when n > 0, length n: the inputs of a sweep's seeds.
SweepInputFactory seeded_inputs(const InputOptions& options);

/// What measures a metric measured outside a run: for embedding_cosine the encoder re-run on `input`'s text at its
/// layer (throws Error unless the input is text); nothing for the rest.
SweepEvaluator sweep_evaluator(const MetricSpec& metric, const LoadedInput& input);

/// The encoder input of text options (--text or --text-file, --model, --layer, --head, --truncate).
TextInputSpec text_input_spec(const InputOptions& options);

/// The text of --text or --text-file; throws Error when the file cannot be read.
std::string input_text(const InputOptions& options);

/// Parses "NAME=VALUE" (or "VARIANT.NAME=VALUE"); throws Error when there is no '='.
std::pair<std::string, std::string> split_assignment(const std::string& text);

/// One request per variant id in `variant_lists` ("a,b" and repeated options both work). `sets` are
/// NAME=VALUE (to every chosen variant with that parameter) or VARIANT.NAME=VALUE (to one); `causal` sets the
/// causal form on every variant (causal=1, bidirectional=0, or nothing for variants causal by construction).
/// Throws Error for no ids, unknown variants, assignments no variant accepts, bad values, or no causal form.
/// `causal_by_default` (a decoder's text) puts causal=1 (bidirectional=0) before the user's values, so an explicit
/// causal=0 still wins, and leaves variants without a causal form as they are.
std::vector<VariantRequest> build_variant_requests(const std::vector<std::string>& variant_lists,
                                                   const std::vector<std::string>& sets, bool causal,
                                                   bool causal_by_default = false);

/// True when the options select a decoder's text (--model smollm2 or a .gguf file): variants default to causal.
bool causal_input(const InputOptions& options);

/// Throws Error unless `path` can be created for writing (checked before long computations).
void require_writable(const std::string& path);

}  // namespace attnscope::cli
