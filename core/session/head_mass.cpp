// attnscope — heads at a glance (see head_mass.h).
#include "core/session/head_mass.h"

#include "core/data/text_model.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope {

std::vector<VariantRequest> heads_view_instances(const std::vector<VariantRequest>& instances) {
    std::vector<VariantRequest> masked;
    for (const VariantRequest& r : instances)
        if (find_variant(r.id).info().has_mask) masked.push_back(r);
    return masked;
}

std::optional<LayerHeadMass> layer_head_mass(const std::vector<Heads>& layers, const std::vector<VariantRequest>& requests,
                                             Backend& backend, const std::function<bool()>& cancelled) {
    auto stop = [&] { return cancelled && cancelled(); };
    LayerHeadMass out;
    out.layers = static_cast<int>(layers.size());
    out.heads = layers.empty() ? 0 : layers.front().heads();
    out.n = layers.empty() ? 0 : layers.front().n();
    for (const VariantRequest& r : requests) {
        HeadMassGrid g;
        g.variant = r.id;
        g.instance = instance_label(find_variant(r.id).info(), r.params);
        out.grids.push_back(std::move(g));
    }
    for (int l = 0; l < out.layers; ++l) {
        const Heads& heads = layers[static_cast<size_t>(l)];
        if (heads.heads() != out.heads || heads.n() != out.n)
            throw Error("layer " + std::to_string(l) + " has another shape than layer 0: every layer needs H and n alike");
        ReferenceCache refs(heads, false);
        for (size_t k = 0; k < requests.size(); ++k) {
            HeadMassGrid& g = out.grids[k];
            if (!g.error.empty()) continue;  // failed on an earlier layer: one message is enough
            if (stop()) return std::nullopt;
            try {
                const RunResult result = run_variant(heads, requests[k], RunOptions{}, backend, &refs);
                if (!result.structure.allowed_lse) {
                    g.error = "keeps no subset of the cells (no mask), so it has no mass kept";
                    g.recall.clear();
                    continue;
                }
                // The same total as mass_recall: the variant's own exact model when it changes the model.
                const Reference* own = refs.own_model(result, backend);
                const Reference& total = own ? *own : refs.get(result.causal, backend);
                for (int h = 0; h < out.heads; ++h)
                    g.recall.push_back(head_mass_recall(*result.structure.allowed_lse, total.lse, h));
            } catch (const Error& e) {
                g.error = e.what(), g.recall.clear();
            }
        }
    }
    return out;
}

std::optional<LayerHeadMass> text_layer_head_mass(const TextInputSpec& spec, const std::vector<VariantRequest>& requests,
                                                  Backend& backend, const std::function<bool()>& cancelled) {
    TextInputSpec all = spec;  // tokenizes and truncates exactly as the variants' input does, every layer kept
    all.layer = text_model_facts(spec.model_dir).layers - 1, all.head = -1;
    TextLayers encoded = encode_text_layers(all);
    std::vector<Heads> layers(encoded.Q.size());
    for (size_t l = 0; l < layers.size(); ++l) {
        layers[l].Q = std::move(encoded.Q[l]), layers[l].K = std::move(encoded.K[l]), layers[l].V = std::move(encoded.V[l]);
        layers[l].X = std::move(encoded.X[l]);
        layers[l].tokens = encoded.input.heads.tokens;
        layers[l].source = "text";
    }
    const TextInput& in = encoded.input;
    auto r = layer_head_mass(layers, requests, backend, cancelled);
    if (r) r->truncated = in.truncated;
    return r;
}

}  // namespace attnscope
