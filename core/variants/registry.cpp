#include "core/variants/registry.h"

namespace attnscope {

const std::vector<std::unique_ptr<Variant>>& all_variants() {
    static const std::vector<std::unique_ptr<Variant>> variants = [] {
        std::vector<std::unique_ptr<Variant>> v;
        add_exact_variants(v);
        add_sparse_variants(v);
        add_lsh_variants(v);
        add_lowrank_variants(v);
        add_performer_variants(v);
        add_kernel_variants(v);
        add_fnet_variants(v);
        return v;
    }();
    return variants;
}

const Variant& find_variant(const std::string& id) {
    std::string known;
    for (const auto& v : all_variants()) {
        if (v->info().id == id) return *v;
        known += (known.empty() ? "" : ", ") + v->info().id;
    }
    throw Error("unknown variant '" + id + "'; registered variants: " + known + " (see `attnscope variants`)");
}

}  // namespace attnscope
