// attnscope — the list of registered variants.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/variants/variant.h"

namespace attnscope {

/// Every registered variant, in the order of docs/VARIANTS.md.
const std::vector<std::unique_ptr<Variant>>& all_variants();
/// The variant with this id; throws Error listing the known ids when there is none.
const Variant& find_variant(const std::string& id);

/// Adders called once by all_variants(); each family file defines one.
void add_exact_variants(std::vector<std::unique_ptr<Variant>>& out);
/// strided, fixed, longformer, bigbird, xl (core/variants/sparse.cpp).
void add_sparse_variants(std::vector<std::unique_ptr<Variant>>& out);
/// `lsh` (Reformer, core/variants/lsh.cpp).
void add_lsh_variants(std::vector<std::unique_ptr<Variant>>& out);
/// `linformer` (core/variants/linformer.cpp) and `svd` (core/variants/svd_oracle.cpp).
void add_lowrank_variants(std::vector<std::unique_ptr<Variant>>& out);
/// performer (FAVOR+).
void add_performer_variants(std::vector<std::unique_ptr<Variant>>& out);
/// linear, efficient, taylor.
void add_kernel_variants(std::vector<std::unique_ptr<Variant>>& out);
/// fnet.
void add_fnet_variants(std::vector<std::unique_ptr<Variant>>& out);

}  // namespace attnscope
