#include "core/session/metrics.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>

#include "core/backend/interface/block_layout.h"
#include "core/session/metric_table.h"
#include "core/variants/masked_exact.h"

namespace attnscope {

Reference compute_reference(const Heads& h, bool causal, bool want_P, Backend& backend) {
    Reference ref;
    ref.causal = causal;
    ref.O = Tensor3(h.heads(), h.n(), h.dv());
    ref.lse = Tensor3(h.heads(), h.n(), 1);
    DenseAttentionArgs a;
    a.Q = &h.Q, a.K = &h.K, a.V = &h.V, a.O = &ref.O, a.lse = &ref.lse;
    a.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(h.d())));
    a.causal = causal;
    if (want_P) {
        ref.P = std::make_shared<Tensor3>(h.heads(), h.n(), h.n());
        a.P = &*ref.P;
    }
    backend.dense_attention(a);
    return ref;
}

const char* exact_model_id(ExactModel model) {
    switch (model) {
        case ExactModel::Softmax: return "softmax";
        case ExactModel::SharedQkSelfMasked: return "shared-qk";
        case ExactModel::Modified: return "modified";
        case ExactModel::Different: return "different";
    }
    return "?";
}

const char* exact_model_sentence(ExactModel model) {
    switch (model) {
        case ExactModel::Softmax:
            return "approximates softmax attention: rel_err_out is its approximation error";
        case ExactModel::SharedQkSelfMasked:
            return "shared QK changes the model to softmax(s·Q·Q_normᵀ), Q_norm = L2-normalised Q, with the self cell masked: rel_err_model is the "
                   "approximation error against that model, rel_err_out adds the change of model";
        case ExactModel::Modified:
            return "score / mask modifiers change the model: rel_err_model and mass_recall are measured against exact "
                   "attention with the same modifiers, rel_err_out against plain softmax adds the change of model";
        case ExactModel::Different:
            return "a different model with no exact softmax counterpart: its errors against softmax attention say how "
                   "different it is, not how well it approximates";
    }
    return "?";
}

Reference compute_model_reference(const Heads& h, ExactModel model, bool causal, Backend& backend) {
    if (model != ExactModel::SharedQkSelfMasked)
        throw Error("no exact reference is defined for this model (internal: ask only for SharedQkSelfMasked)");
    const int H = h.heads(), n = h.n(), b = 64, nb = block_count(n, b);
    Tensor3 keys = h.Q;  // shared QK: the keys are the queries, L2-normalised (zero rows stay zero)
    for (int hh = 0; hh < H; ++hh)
        for (int i = 0; i < n; ++i) {
            const float norm = keys.head(hh).row(i).norm();
            if (norm > 0) keys.head(hh).row(i) /= norm;
        }
    // Every block of the (lower, when causal) block triangle; diagonal blocks mask the self cells (and j > i).
    BlockLayout layout;
    layout.n = n, layout.block = b, layout.heads = 1;
    for (int I = 0; I < nb; ++I) {
        layout.row_ptr.push_back(static_cast<int>(layout.col_idx.size()));
        for (int J = 0; J <= (causal ? I : nb - 1); ++J) {
            if (J != I) layout.append_block(J);
            else layout.append_block(J, [causal](int r, int c) { return c != r && (!causal || c < r); });
        }
    }
    layout.row_ptr.push_back(static_cast<int>(layout.col_idx.size()));
    Reference ref;
    ref.causal = causal;
    ref.O = Tensor3(H, n, h.dv());
    ref.lse = Tensor3(H, n, 1);
    BlockSparseAttentionArgs a;
    a.Q = &h.Q, a.K = &keys, a.V = &h.V, a.layout = &layout, a.O = &ref.O, a.lse = &ref.lse;
    a.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(h.d())));
    backend.block_sparse_attention(a);
    // A row with nothing but itself (the first row when causal, or n = 1) attends to itself with all its weight.
    for (int hh = 0; hh < H; ++hh)
        for (int i = 0; i < n; ++i)
            if (!std::isfinite(ref.lse.at(hh, i, 0))) {
                ref.O.head(hh).row(i) = h.V.head(hh).row(i);
                ref.lse.at(hh, i, 0) = a.scale * h.Q.head(hh).row(i).dot(keys.head(hh).row(i));
            }
    return ref;
}

Reference compute_modified_reference(const Heads& h, const Modifiers& modifiers, bool causal, Backend& backend) {
    MaskedExact run = masked_exact_attention(h, static_cast<float>(1.0 / std::sqrt(static_cast<double>(h.d()))), causal,
                                             modifiers, backend);
    Reference ref;
    ref.causal = causal;
    ref.O = std::move(run.O);
    ref.lse = std::move(run.lse);
    return ref;
}

namespace {

/// ‖approx_h − exact_h‖_F / ‖exact_h‖_F of every head h (the bare norm where exact_h is zero).
std::vector<double> head_rel_errs(const Tensor3& approx, const Tensor3& exact) {
    std::vector<double> out;
    for (int h = 0; h < exact.heads(); ++h) {
        const double denom = exact.head(h).cast<double>().norm();
        const double num = (approx.head(h).cast<double>() - exact.head(h).cast<double>()).norm();
        out.push_back(denom > 0 ? num / denom : num);
    }
    return out;
}

/// Both directions of the mean row KL between the exact P and the effective P̃ of every head, averaged over that
/// head's rows, in one pass with one log per cell: KL(P ‖ P̃) is row_kl (+inf wherever P̃ drops mass P has: every
/// mask), KL(P̃ ‖ P) is row_kl_rev (finite for a mask: the cells P̃ drops contribute nothing).
struct HeadRowKls {
    std::vector<double> forward;  // per head: mean_i KL(P_i ‖ P̃_i)
    std::vector<double> reverse;  // per head: mean_i KL(P̃_i ‖ P_i)
};
HeadRowKls head_row_kls(const Tensor3& P, const Tensor3& Pt) {
    const int H = P.heads(), n = P.rows(), m = P.cols();
    const double inf = std::numeric_limits<double>::infinity();
    HeadRowKls out;
    for (int h = 0; h < H; ++h) {
        double forward = 0, reverse = 0;
        bool forward_inf = false, reverse_inf = false;
#pragma omp parallel for reduction(+ : forward, reverse) reduction(|| : forward_inf, reverse_inf)
        for (int i = 0; i < n; ++i) {
            const float* a = P.head_data(h) + size_t(i) * m;
            const float* b = Pt.head_data(h) + size_t(i) * m;
            for (int j = 0; j < m; ++j) {
                const double x = a[j], y = b[j];
                if (x > 0 && y > 0) {
                    const double log_ratio = std::log(x / y);
                    forward += x * log_ratio, reverse -= y * log_ratio;
                } else if (x > 0) {
                    forward_inf = true;
                } else if (y > 0) {
                    reverse_inf = true;
                }
            }
        }
        out.forward.push_back(forward_inf ? inf : forward / std::max(1, n));
        out.reverse.push_back(reverse_inf ? inf : reverse / std::max(1, n));
    }
    return out;
}

bool same_shape(const Tensor3& a, const Tensor3& b) {
    return a.heads() == b.heads() && a.rows() == b.rows() && a.cols() == b.cols();
}

bool all_non_negative(const Tensor3& t) {
    for (int64_t k = 0; k < t.size(); ++k)
        if (t.data()[k] < 0.0f) return false;
    return true;
}

}  // namespace

namespace {

/// The fewest values of [first, last), largest first, whose sum reaches `target` (all of them when it never does);
/// reorders the range. A quickselect on the sum: halve, keep the half the answer lies in.
int fewest_for_mass(std::vector<float>::iterator first, std::vector<float>::iterator last, double target) {
    int keys = 0;
    while (last - first > 16) {
        const auto mid = first + (last - first) / 2;
        std::nth_element(first, mid, last, std::greater<float>());  // [first, mid) holds the larger half
        double upper = 0;
        for (auto it = first; it != mid; ++it) upper += *it;
        if (upper >= target) {
            last = mid;
        } else {
            target -= upper, keys += int(mid - first);
            first = mid;
        }
    }
    std::sort(first, last, std::greater<float>());
    for (auto it = first; it != last && target > 0; ++it) target -= *it, ++keys;
    return keys;
}

/// The float's biased binary exponent (0–255); values of one exponent are within 2× of each other.
int exponent_of(float x) { return int(std::bit_cast<uint32_t>(x) >> 23) & 0xFF; }

/// The fewest of v's values (all ≥ 0), largest first, whose sum reaches `share` of their total (all of them when it
/// never does); reorders v. One pass sums the values per binary exponent (the total is the sum of those sums);
/// walking the exponents from the top finds the one where the running sum crosses the target, and only its values
/// are ordered. This runs on every row of every view after every edit: a sort per row was the largest cost of a
/// view's metrics.
int fewest_keys_for_share(std::vector<float>& v, double share) {
    // Four interleaved histograms: neighbouring cells mostly share an exponent, and with one histogram every add
    // waits for the store of the one before.
    constexpr int kWays = 4;
    std::array<std::array<double, 256>, kWays> part_mass{};
    std::array<std::array<int, 256>, kWays> part_count{};
    int low = 255, high = 0;
    for (size_t k = 0; k < v.size(); ++k) {
        const int e = exponent_of(v[k]), w = int(k % kWays);
        part_mass[size_t(w)][size_t(e)] += v[k], ++part_count[size_t(w)][size_t(e)];
        low = std::min(low, e), high = std::max(high, e);
    }
    std::array<double, 256> mass{};
    std::array<int, 256> count{};
    double total = 0;
    for (int e = low; e <= high; ++e) {
        for (int w = 0; w < kWays; ++w) mass[size_t(e)] += part_mass[size_t(w)][size_t(e)], count[size_t(e)] += part_count[size_t(w)][size_t(e)];
        total += mass[size_t(e)];
    }
    double target = share * total;
    int keys = 0;
    for (int e = high; e >= low; --e) {
        if (count[size_t(e)] == 0) continue;
        if (mass[size_t(e)] < target) {
            target -= mass[size_t(e)], keys += count[size_t(e)];
            continue;
        }
        const auto last = std::partition(v.begin(), v.end(), [e](float x) { return exponent_of(x) == e; });
        return keys + fewest_for_mass(v.begin(), last, target);
    }
    return keys;
}

/// Mean over the rows of each head of the largest exact mass any set of c keys of the row holds, c = the allowed
/// cells of that row of the mask: what the topk oracle keeps with the same number of keys in every row.
std::vector<double> head_mass_ceilings(const Tensor3& P, const ReasonMask& mask) {
    const int H = P.heads(), n = P.rows();
    std::vector<double> out;
    for (int h = 0; h < H; ++h) {
        double total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static)
        for (int i = 0; i < n; ++i) {
            int keys = 0;
            for (int j = 0; j < n; ++j) keys += mask.at(h, i, j) != Reason::None;
            if (keys == 0) continue;
            std::vector<float> row(P.head_data(h) + size_t(i) * n, P.head_data(h) + size_t(i + 1) * n);
            std::nth_element(row.begin(), row.begin() + (keys - 1), row.end(), std::greater<float>());
            double kept = 0;
            for (int k = 0; k < keys; ++k) kept += row[size_t(k)];
            total += kept;
        }
        out.push_back(total / std::max(1, n));
    }
    return out;
}

double mean_of(const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return v.empty() ? 0 : sum / double(v.size());
}

/// Sets `field` of every head from `values` (one per head) and the run's `field` to their mean.
void set_per_head(Metrics& m, std::optional<double> MetricValues::*field, const std::vector<double>& values) {
    for (size_t h = 0; h < values.size() && h < m.heads.size(); ++h) m.heads[h].*field = values[h];
    m.*field = mean_of(values);
}

}  // namespace

RowConcentration row_concentration(const Tensor3& P) {
    const int H = P.heads(), n = P.rows(), stride = std::max(1, n / 256);
    RowConcentration out;
    std::vector<float> row(size_t(P.cols()));
    for (int h = 0; h < H; ++h) {
        double keys = 0, entropy = 0;
        int rows = 0;
        for (int i = 0; i < n; i += stride, ++rows) {
            const Eigen::Map<const Eigen::ArrayXf> p(P.head_data(h) + size_t(i) * P.cols(), P.cols());
            // Eigen's vectorised float log: a scalar double log per cell cost as much as the variant's run.
            entropy -= (p > 0.0f).select(p * p.log(), 0.0f).cast<double>().sum();
            std::copy(p.data(), p.data() + p.size(), row.begin());
            keys += fewest_keys_for_share(row, 0.9);
        }
        out.keys_for_90.push_back(keys / std::max(1, rows));
        out.entropy.push_back(entropy / std::max(1, rows));
    }
    return out;
}

const std::vector<std::string>& metric_ids() {
    static const std::vector<std::string> ids = [] {
        std::vector<std::string> out;
        for (const MetricSpec& m : metric_table())
            if (!measured_outside_run(m)) out.push_back(m.id);
        return out;
    }();
    return ids;
}

std::optional<double> metric_by_id(const RunResult& r, const std::string& id) {
    const MetricSpec* m = find_metric(id);
    return m ? metric_value(*m, r) : std::nullopt;
}

std::vector<double> best_rank_errors(const std::vector<double>& S, int heads, int r) {
    if (heads <= 0 || S.empty()) return {};
    const size_t m = S.size() / size_t(heads);
    std::vector<double> out;
    for (int h = 0; h < heads; ++h) {
        double total = 0, tail = 0;
        for (size_t i = 0; i < m; ++i) {
            const double s2 = S[size_t(h) * m + i] * S[size_t(h) * m + i];
            total += s2;
            if (i >= size_t(std::max(0, r))) tail += s2;
        }
        out.push_back(total > 0 ? std::sqrt(tail / total) : 0);
    }
    return out;
}

double best_rank_error(const std::vector<double>& S, int heads, int r) { return mean_of(best_rank_errors(S, heads, r)); }

void set_rank_ceilings(Metrics& m, const std::vector<double>& per_head) {
    if (!per_head.empty()) set_per_head(m, &MetricValues::rank_ceiling, per_head);
}

double head_mass_recall(const Tensor3& allowed_lse, const Tensor3& total_lse, int h) {
    const int n = allowed_lse.rows();
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += std::exp(double(allowed_lse.at(h, i, 0)) - double(total_lse.at(h, i, 0)));
    return n > 0 ? sum / n : 0;
}

void compute_metrics(const Reference& ref, const Reference* model_ref, const VariantInfo& info, RunResult& r) {
    Metrics& m = r.metrics;
    m = Metrics{};
    m.heads.resize(size_t(ref.O.heads()));
    // A variant whose output is not attention of this input (fnet mixing the layer input X) has another shape.
    if (same_shape(r.O, ref.O)) set_per_head(m, &MetricValues::rel_err_out, head_rel_errs(r.O, ref.O));
    if (model_ref && same_shape(r.O, model_ref->O))
        set_per_head(m, &MetricValues::rel_err_model, head_rel_errs(r.O, model_ref->O));
    if (r.P_eff && ref.P && same_shape(*r.P_eff, *ref.P)) {
        set_per_head(m, &MetricValues::rel_err_attn, head_rel_errs(*r.P_eff, *ref.P));
        // KL needs a distribution: a kernel that can go negative (performer trig) has none on that run.
        if (info.normalised && all_non_negative(*r.P_eff)) {
            const HeadRowKls kl = head_row_kls(*ref.P, *r.P_eff);
            set_per_head(m, &MetricValues::row_kl, kl.forward);
            set_per_head(m, &MetricValues::row_kl_rev, kl.reverse);
        }
    }
    if (r.structure.allowed_lse) {
        // The mask is over the scores of the model the variant runs: its mass is a share of that model's total.
        const Reference& total_ref = model_ref ? *model_ref : ref;
        const Tensor3& allowed = *r.structure.allowed_lse;
        const int H = allowed.heads(), n = allowed.rows();
        m.row_mass_recall.assign(size_t(n), 0.0f);
        m.head_row_mass_recall.assign(size_t(H) * n, 0.0f);
        std::vector<double> recall;
        for (int h = 0; h < H; ++h) {
            for (int i = 0; i < n; ++i) {
                const double kept = std::exp(double(allowed.at(h, i, 0)) - double(total_ref.lse.at(h, i, 0)));
                m.head_row_mass_recall[size_t(h) * n + i] = static_cast<float>(kept);
                m.row_mass_recall[size_t(i)] += static_cast<float>(kept / H);
            }
            recall.push_back(head_mass_recall(allowed, total_ref.lse, h));
        }
        set_per_head(m, &MetricValues::mass_recall, recall);
        // The ceiling needs the exact P of the model the mask is measured in: plain softmax, materialised.
        if (!model_ref && ref.P && r.structure.mask && r.structure.mask->n == ref.P->rows() &&
            r.structure.mask->heads == ref.P->heads())
            set_per_head(m, &MetricValues::mass_ceiling, head_mass_ceilings(*ref.P, *r.structure.mask));
    }
    m.density = r.structure.density;
    if (r.P_eff && info.normalised && all_non_negative(*r.P_eff)) {
        const RowConcentration rows = row_concentration(*r.P_eff);
        set_per_head(m, &MetricValues::keys_for_90, rows.keys_for_90);
        set_per_head(m, &MetricValues::row_entropy, rows.entropy);
    }
    // The exact P's own concentration, beside P̃'s: how many keys the input needs, not how many the variant kept.
    if (ref.P && ref.P->heads() == ref.O.heads()) {
        const RowConcentration exact = ref.P_rows ? *ref.P_rows : row_concentration(*ref.P);
        set_per_head(m, &MetricValues::keys_for_90_exact, exact.keys_for_90);
        set_per_head(m, &MetricValues::row_entropy_exact, exact.entropy);
    }
    if (info.has_mask && m.density && *m.density >= kDenseShare) {
        const int n = r.O.rows();
        char share[16];
        std::snprintf(share, sizeof share, "%.0f%%", 100 * *m.density);
        m.dense_warning = "dense at n = " + std::to_string(n) + ": the pattern scores " + share + " of the " +
                          (r.causal ? "causal cells" : "cells") +
                          ", so it shows no sparsity here; a longer input or a smaller window / block will";
    }
}

}  // namespace attnscope
