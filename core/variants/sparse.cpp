// attnscope — registers the masked family (docs/VARIANTS.md order): strided, fixed, longformer, bigbird, xl, sink, vslash, blocksel, topk (the oracle),
// compose (the user's own composition of mask predicates).
#include "core/variants/registry.h"
#include "core/variants/sparse_common.h"

namespace attnscope {

// Each factory is defined in its variant's own file (the class itself stays file-local there): a masked variant
// is that file plus its two lines here.
std::unique_ptr<Variant> make_strided_variant();
std::unique_ptr<Variant> make_fixed_variant();
std::unique_ptr<Variant> make_longformer_variant();
std::unique_ptr<Variant> make_bigbird_variant();
std::unique_ptr<Variant> make_xl_variant();
std::unique_ptr<Variant> make_sink_variant();
std::unique_ptr<Variant> make_vslash_variant();
std::unique_ptr<Variant> make_blocksel_variant();
std::unique_ptr<Variant> make_topk_variant();
std::unique_ptr<Variant> make_compose_variant();

void add_sparse_variants(std::vector<std::unique_ptr<Variant>>& out) {
    out.push_back(make_strided_variant());
    out.push_back(make_fixed_variant());
    out.push_back(make_longformer_variant());
    out.push_back(make_bigbird_variant());
    out.push_back(make_xl_variant());
    out.push_back(make_sink_variant());
    out.push_back(make_vslash_variant());
    out.push_back(make_blocksel_variant());
    out.push_back(make_topk_variant());
    out.push_back(make_compose_variant());
}

}  // namespace attnscope
