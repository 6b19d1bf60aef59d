#include "core/session/decoder_whatif.h"

#include <chrono>
#include <algorithm>
#include <cmath>

#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope {

std::string LayerSpan::text(int layers) const {
    if (first == 0 && last == layers - 1) return "all " + std::to_string(layers) + " layers";
    if (first == last) return "layer " + std::to_string(first);
    return "layers " + std::to_string(first) + "-" + std::to_string(last);
}

namespace {

/// The whole of `text` as a non-negative integer, or −1.
int whole_index(const std::string& text) {
    if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(text);
}

/// log Σ exp(x) of one row, in float64.
double log_sum_exp(const float* x, int count) {
    double mx = x[0];
    for (int k = 1; k < count; ++k) mx = std::max(mx, double(x[k]));
    double sum = 0;
    for (int k = 0; k < count; ++k) sum += std::exp(double(x[k]) - mx);
    return mx + std::log(sum);
}

/// KL(softmax(p) ‖ softmax(q)) of two logit rows, in float64 (plain loops: GCC 12 warns inside Eigen's AVX-512 double
/// code).
double row_kl(const float* p, const float* q, int count) {
    const double p_lse = log_sum_exp(p, count), q_lse = log_sum_exp(q, count);
    double kl = 0;
    for (int k = 0; k < count; ++k) {
        const double log_p = p[k] - p_lse;
        kl += std::exp(log_p) * (log_p - (q[k] - q_lse));
    }
    return kl;
}

}  // namespace

LayerSpan parse_layer_span(const std::string& text, int layers, const std::string& option) {
    const std::string range = "give a layer (0 to " + std::to_string(layers - 1) + "), a range such as 3-7, or all (the " +
                              "model has " + std::to_string(layers) + " layers)";
    if (text == "all") return {0, layers - 1};
    const size_t dash = text.find('-');
    const int a = whole_index(dash == std::string::npos ? text : text.substr(0, dash));
    const int b = dash == std::string::npos ? a : whole_index(text.substr(dash + 1));
    if (a < 0 || b < 0) throw Error(option + " '" + text + "' is not a layer, a range or 'all': " + range);
    if (b < a) throw Error(option + " '" + text + "' runs backwards: " + range);
    if (b >= layers) throw Error(option + " " + text + " is out of range: " + range);
    return {a, b};
}

ExactNextTokens exact_next_tokens(const LlamaDecoder& decoder, const std::vector<int>& ids) {
    if (ids.size() < 2) throw Error("perplexity needs at least two tokens (the first predicts the second): give a longer text");
    DecoderOptions options;
    options.keep_qkv = false;
    options.logits = true;
    ExactNextTokens exact;
    exact.ids = ids;
    exact.logits = std::move(decoder.forward(ids, options).logits);
    exact.perplexity = std::exp(mean_next_token_nll(exact.logits, ids, &exact.nll));
    return exact;
}

NextTokenComparison compare_next_tokens(const ExactNextTokens& exact, const MatrixRM& logits) {
    const int n = static_cast<int>(exact.ids.size());
    if (logits.rows() != exact.logits.rows() || logits.cols() != exact.logits.cols())
        throw Error("the what-if's logits do not match the exact model's in shape");
    NextTokenComparison c;
    c.exact_perplexity = exact.perplexity;
    c.perplexity = std::exp(mean_next_token_nll(logits, exact.ids, &c.nll));
    c.delta_perplexity = c.perplexity - c.exact_perplexity;
    std::vector<double> kl(size_t(n - 1));
    std::vector<char> agree(size_t(n - 1));
#pragma omp parallel for schedule(static)
    for (int t = 0; t < n - 1; ++t) {
        kl[size_t(t)] = row_kl(exact.logits.row(t).data(), logits.row(t).data(), int(logits.cols()));
        const int p_top = int(std::max_element(exact.logits.row(t).data(), exact.logits.row(t).data() + logits.cols()) -
                              exact.logits.row(t).data());
        const int q_top = int(std::max_element(logits.row(t).data(), logits.row(t).data() + logits.cols()) - logits.row(t).data());
        agree[size_t(t)] = p_top == q_top;
    }
    double kl_sum = 0, agree_sum = 0;
    for (int t = 0; t < n - 1; ++t) kl_sum += kl[size_t(t)], agree_sum += agree[size_t(t)];
    c.mean_kl = kl_sum / (n - 1);
    c.top1_agreement = agree_sum / (n - 1);
    return c;
}

PerplexityWhatIf run_perplexity_whatif(const LlamaDecoder& decoder, const ExactNextTokens& exact, LayerSpan layers,
                                       const VariantRequest& request, Backend& backend,
                                       const std::function<bool()>& cancelled) {
    const int count = decoder.config().layers;
    if (layers.first < 0 || layers.last >= count || layers.first > layers.last)
        throw Error("what-if layers " + std::to_string(layers.first) + "-" + std::to_string(layers.last) +
                    " are outside the decoder's 0-" + std::to_string(count - 1));
    const VariantInfo& info = find_variant(request.id).info();
    DecoderOptions options;
    options.keep_qkv = false;
    options.logits = true;
    RunOptions run_options;  // no matrices: only O feeds the rest of the decoder
    options.hook = [&](int l, const Heads& heads) -> std::optional<Tensor3> {
        if (cancelled && cancelled()) throw Error("cancelled");
        if (!layers.contains(l)) return std::nullopt;
        RunResult r;
        try {
            r = run_variant(heads, request, run_options, backend, nullptr);
        } catch (const Error& e) {
            throw Error("what-if at layer " + std::to_string(l) + ": " + e.what());
        }
        // A row that reads later tokens would see the very token it is asked to predict: perplexity would mean nothing.
        if (!r.causal)
            throw Error(instance_label(info, request.params) + " reads later tokens (it does not run causal), so in a "
                        "decoder it would see the token it predicts: give it causal=1 or choose a variant with a causal form");
        return std::move(r.O);
    };
    const auto start = std::chrono::steady_clock::now();
    const DecoderOutput out = decoder.forward(exact.ids, options);
    PerplexityWhatIf w;
    w.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    w.variant = request.id;
    w.layers = layers;
    w.result = compare_next_tokens(exact, out.logits);
    return w;
}

std::function<std::optional<double>(const VariantRequest&, Backend&)> perplexity_measure(
    std::shared_ptr<const DecoderModel> model, std::vector<int> ids, LayerSpan layers) {
    auto exact = std::make_shared<ExactNextTokens>();
    return [model, ids = std::move(ids), layers, exact](const VariantRequest& request, Backend& backend) -> std::optional<double> {
        if (exact->ids.empty()) *exact = exact_next_tokens(model->decoder, ids);
        return run_perplexity_whatif(model->decoder, *exact, layers, request, backend).result.perplexity;
    };
}

}  // namespace attnscope
