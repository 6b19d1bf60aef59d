// attnscope — what the run worker keeps between batches (see batch_cache.h).
#include "core/session/batch_cache.h"

#include <cstdio>

#include "core/variants/registry.h"

namespace attnscope {

namespace {

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

/// Every field that decides the tensors of a synthetic or text input (loaded tensors are never cached).
std::string input_spec_key(const InputSpec& spec) {
    if (spec.mode == InputMode::Synthetic) {
        const ScenarioSpec& s = spec.scenario;
        return "synthetic " + std::to_string(int(s.kind)) + " n" + std::to_string(s.n) + " h" + std::to_string(s.heads) +
               " d" + std::to_string(s.dim) + " dv" + std::to_string(s.value_dim) + " t" + number(s.temperature) +
               " seed" + std::to_string(s.seed) + " p" + std::to_string(s.structure);
    }
    return "text layer" + std::to_string(spec.layer) + " " + (spec.truncate ? "cut " : "whole ") + spec.model_dir + "\n" +
           spec.text;
}

std::string text_key(const InputSpec& spec) {
    return (spec.truncate ? "cut " : "whole ") + spec.model_dir + "\n" + spec.text;
}

}  // namespace

std::shared_ptr<const Heads> BatchCache::input(const InputSpec& spec, InputInfo& info, bool& reused, bool& encoded) {
    reused = encoded = false;
    if (spec.mode == InputMode::Tensors) {  // the files may have changed since: read them again
        m_input_key.clear(), m_heads.reset(), m_refs.reset(), m_views.clear(), m_exact_spectra.clear();
        m_exact_pictures.clear();
        auto heads = std::make_shared<Heads>(build_input(spec, &info));
        validate_heads(*heads);
        m_heads = heads;  // this batch's references; the empty key keeps its views out of the cache
        return m_heads;
    }
    const std::string key = input_spec_key(spec);
    if (m_heads && key == m_input_key) {
        info = m_info, reused = true;
        return m_heads;
    }
    m_input_key.clear(), m_heads.reset(), m_refs.reset(), m_exact_spectra.clear(), m_exact_pictures.clear();
    std::shared_ptr<Heads> heads;
    if (spec.mode == InputMode::Text) {
        // A layer change keeps the text: its encoded layers are read again; a new text (or a deeper layer) encodes.
        const std::string tk = text_key(spec);
        if (!m_layers || tk != m_text_key || spec.layer >= int(m_layers->Q.size())) {
            m_layers.reset();
            m_layers = std::make_shared<const TextLayers>(encode_input_text(spec, &info));
            m_text_key = tk, m_text_info = info;
            encoded = true;
        } else {
            info = m_text_info;
        }
        heads = std::make_shared<Heads>(text_input_of_layer(*m_layers, spec.layer, -1).heads);
    } else {
        heads = std::make_shared<Heads>(build_input(spec, &info));
    }
    validate_heads(*heads);
    m_input_key = key, m_heads = heads, m_info = info;
    return m_heads;
}

ReferenceCache& BatchCache::references(bool want_P) {
    if (!m_refs || m_refs_want_P != want_P) {
        if (!m_heads) throw Error("internal: references asked before the input was built");
        m_refs = std::make_unique<ReferenceCache>(*m_heads, want_P);
        m_refs_want_P = want_P;
        m_exact_pictures.clear();
    }
    return *m_refs;
}

CachedViews* BatchCache::views(const std::string& key) {
    const auto it = m_views.find(key);
    return it == m_views.end() ? nullptr : &it->second;
}

CachedViews& BatchCache::store(const std::string& key, CachedViews views) { return m_views[key] = std::move(views); }

void BatchCache::keep_only(const std::set<std::string>& keys) {
    for (auto it = m_views.begin(); it != m_views.end();) it = keys.count(it->first) ? std::next(it) : m_views.erase(it);
}

SpectrumView* BatchCache::exact_spectrum(bool causal, int head) {
    const auto it = m_exact_spectra.find({causal, head});
    return it == m_exact_spectra.end() ? nullptr : &it->second;
}

void BatchCache::store_exact_spectrum(bool causal, int head, SpectrumView s) { m_exact_spectra[{causal, head}] = std::move(s); }

std::string view_key(const BatchCache& cache, const RunBatchRequest& request, const VariantRequest& variant) {
    std::string key = cache.input_key() + "\n" + variant.id;
    for (const auto& [name, value] : variant.params.numbers()) key += " " + name + "=" + number(value);
    for (const auto& [name, list] : variant.params.lists()) {
        key += " " + name + "=[";
        for (int v : list) key += std::to_string(v) + ",";
        key += "]";
    }
    key += "\nmax_n" + std::to_string(request.max_matrix_n) + " view" + std::to_string(request.view_size) + " order" +
           std::to_string(int(request.display_order)) + " backend " + request.backend +
           (request.rank_ceilings ? " rank_ceilings" : "");
    return key;
}

const ExactPictures* BatchCache::exact_pictures(bool causal, int size) const {
    const auto it = m_exact_pictures.find({causal, size});
    return it == m_exact_pictures.end() ? nullptr : &it->second;
}

void BatchCache::store_exact_pictures(bool causal, int size, ExactPictures pictures) {
    m_exact_pictures[{causal, size}] = std::move(pictures);
}

}  // namespace attnscope
