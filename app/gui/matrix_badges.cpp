// attnscope — metric badges (see matrix_badges.h).
#include "app/gui/matrix_badges.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/format.h"
#include "core/session/metrics.h"

namespace attnscope::gui {

namespace {

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

ImVec4 quality(double err) {
    if (err < 1e-3) return {0.45f, 0.85f, 0.50f, 1};
    if (err < 1e-1) return {0.95f, 0.80f, 0.35f, 1};
    return {0.95f, 0.50f, 0.40f, 1};
}

const ImVec4 kNeutral(0.70f, 0.75f, 0.85f, 1);
const ImVec4 kScope(0.88f, 0.88f, 0.92f, 1);  // the heads a list of badges is over: lighter than the metrics

/// What a relative error above 1 means, added to its tooltip (LSH 2.5, Performer 4 on some inputs).
std::string above_one(double err) {
    return err > 1 ? "\n\nAbove 1: the error is larger than the reference itself — outputting zeros would be closer. "
                     "Large estimation variance (random features at unit scale) or missed keys (hashing) do that."
                   : "";
}

/// Collects the badges of one list; a value written in e-notation gets a shorter fixed form where that is as exact.
struct BadgeWriter {
    std::vector<Badge> out;
    void add(const char* id, std::string label, std::string short_label, std::optional<double> number,
             std::string value, ImVec4 colour, std::string help, bool key) {
        std::string short_value = value;
        if (number && std::isfinite(*number) && value.find('e') != std::string::npos && std::fabs(*number) >= 1e-3)
            short_value = fmt("%.3g", *number);  // 9.26e-01 → 0.926 where that is as exact
        out.push_back({id, std::move(label), std::move(short_label), std::move(value), std::move(short_value), number,
                       colour, std::move(help), key});
    }
};

/// Which heads every number of the list is over, as a badge of its own (only when there are several heads).
void add_scope_badge(BadgeWriter& w, int heads, bool own, int head, const std::string& scope) {
    if (heads > 1) {
        const std::string all = "mean over " + std::to_string(heads) + " heads";
        w.add("scope", own ? scope : all, own ? scope : all, std::nullopt, "", kScope,
            own ? "Every number here is head " + std::to_string(head) + "'s own: each metric over that head's rows and "
                      "cells alone, like the matrix drawn. View ▾ → \"badges: mean over heads\" shows the means over "
                      "heads instead (what `attnscope run` prints and the lessons' checks compare)."
                : "Every number here is the " + all + " of each head's own value (density: over every head's "
                      "cells), not the value of the head drawn. View ▾ → untick \"badges: mean over heads\" for the "
                      "drawn head's own numbers.",
            true);
    }
}

/// The output and matrix errors against exact softmax (or, for a different model, the distance to it).
void add_error_badges(BadgeWriter& w, const RunResult& r, const MetricValues& m, const std::string& scope) {
    if (r.model == ExactModel::Different) {
        w.add("different_model", "different model", "different model", std::nullopt, "", kNeutral,
            exact_model_sentence(r.model), true);
        if (m.rel_err_out)
            w.add("rel_err_out", "Δ vs softmax", "Δ vs softmax", m.rel_err_out, fmt("%.2e", *m.rel_err_out), kNeutral,
                "‖O − O_full‖_F / ‖O_full‖_F, " + scope + ": how far this model's output is from softmax attention's "
                "(not an approximation error: the model is a different one)", true);
    } else if (m.rel_err_out) {
        w.add("rel_err_out", "rel_err_out", "err_out", m.rel_err_out, fmt("%.2e", *m.rel_err_out), quality(*m.rel_err_out),
            (r.model == ExactModel::Softmax
                 ? "‖O − O_full‖_F / ‖O_full‖_F, " + scope + ": relative error of the output against exact softmax "
                   "attention"
                 : "‖O − O_full‖_F / ‖O_full‖_F against exact softmax attention, " + scope + ": the change of model "
                   "(shared QK, modifiers) plus the approximation; rel_err_model separates the approximation") +
                above_one(*m.rel_err_out),
            true);
    }
    if (m.rel_err_model)
        w.add("rel_err_model", "rel_err_model", "err_model", m.rel_err_model, fmt("%.2e", *m.rel_err_model),
            quality(*m.rel_err_model),
            std::string(exact_model_sentence(r.model)) + " (" + scope + ")" + above_one(*m.rel_err_model), true);
    if (m.rel_err_attn && r.model != ExactModel::Different)
        w.add("rel_err_attn", "rel_err_attn", "err_attn", m.rel_err_attn, fmt("%.2e", *m.rel_err_attn),
            quality(*m.rel_err_attn),
            "‖P_eff − P‖_F / ‖P‖_F, " + scope + ": how far the effective attention matrix is from exact softmax "
            "attention's (the svd oracle is the closest any rank-r matrix gets)" + above_one(*m.rel_err_attn),
            false);
    else if (m.rel_err_attn)
        w.add("rel_err_attn", "ΔP vs softmax", "ΔP vs softmax", m.rel_err_attn, fmt("%.2e", *m.rel_err_attn), kNeutral,
            "‖P_eff − P‖_F / ‖P‖_F, " + scope + ": how far this model's matrix is from softmax attention's P (a "
            "different model, so not an approximation error)" + above_one(*m.rel_err_attn),
            false);
    if (m.rank_ceiling)
        w.add("rank_ceiling", "svd ceiling", "svd ceiling", m.rank_ceiling, fmt("%.2e", *m.rank_ceiling), kNeutral,
            "rel_err_attn of P_r, the closest rank-r matrix to the exact P (truncated SVD, Eckart–Young), r = this "
            "variant's rank bound: no method whose P_eff has rank ≤ r gets closer (" + scope + ")",
            false);
    if (m.row_kl)
        w.add("row_kl", "KL(P‖P_eff)", "KL(P‖P_eff)", m.row_kl,
            std::isfinite(*m.row_kl) ? fmt("%.2e", *m.row_kl) : std::string("inf"),
            std::isfinite(*m.row_kl) ? quality(*m.row_kl) : kNeutral,
            "mean over rows i of KL(P_i ‖ P_eff_i), P = exact softmax, " + scope + ": infinite as soon as P_eff gives "
            "zero weight to a cell where P has mass — every mask does; see KL(P_eff‖P) for a finite measure",
            false);
    if (m.row_kl_rev)
        w.add("row_kl_rev", "KL(P_eff‖P)", "KL(P_eff‖P)", m.row_kl_rev, fmt("%.2e", *m.row_kl_rev), quality(*m.row_kl_rev),
            "mean over rows i of KL(P_eff_i ‖ P_i), P = exact softmax, " + scope + ": finite for a mask; for a mask "
            "renormalised over its allowed cells it equals the mean of −log(mass kept by row i)",
            false);
}

/// The exact mass the pattern keeps, its ceiling, and the dense-at-this-n warning.
void add_mass_badges(BadgeWriter& w, const RunResult& r, const MetricValues& m, const std::string& scope) {
    if (m.mass_recall)
        w.add("mass_recall", "mass_recall", "mass", m.mass_recall, fmt("%.3f", *m.mass_recall), quality(1 - *m.mass_recall),
            "mean over rows i of Σ_{j allowed} P_ij, " + scope + ": share of the exact attention mass the pattern keeps",
            true);
    if (m.mass_ceiling && m.mass_recall)
        w.add("mass_ceiling", "ceiling", "ceiling", m.mass_ceiling, fmt("%.3f", *m.mass_ceiling), kNeutral,
            "the most exact mass any pattern with the same number of keys in each row keeps (the topk oracle, row by "
            "row), " + scope + ": this pattern reaches " +
                fmt("%.0f%%", 100 * *m.mass_recall / std::max(1e-12, *m.mass_ceiling)) + " of it",
            true);
    if (!r.metrics.dense_warning.empty())
        w.add("dense_warning", "dense at this n", "dense at this n", std::nullopt, "", {0.95f, 0.65f, 0.30f, 1},
            r.metrics.dense_warning, true);
}

/// How concentrated P_eff and the exact P are: density, keys for 90% of a row, row entropy.
void add_concentration_badges(BadgeWriter& w, const RunResult& r, const MetricValues& m, bool own,
                              const std::string& scope) {
    // The variants count allowed cells over every head only: the same number whichever head is drawn.
    if (r.metrics.density)
        w.add("density", own ? "density (all heads)" : "density", own ? "density·all" : "density", r.metrics.density,
            fmt("%.3f", *r.metrics.density), kNeutral,
            "allowed cells / (n² or n(n+1)/2 when causal), over every head's cells", false);
    if (m.keys_for_90)
        w.add("keys_for_90", "90% of P_eff in", "90% P_eff", m.keys_for_90, fmt("%.1f keys", *m.keys_for_90), kNeutral,
            "how concentrated this variant's effective matrix P_eff is: the fewest keys that hold 90% of a row's "
            "weight, mean over rows, " + scope + " (compare the exact P's beside it)",
            false);
    if (m.keys_for_90_exact)
        w.add("keys_for_90_exact", "90% of exact P in", "90% P", m.keys_for_90_exact,
            fmt("%.1f keys", *m.keys_for_90_exact), kNeutral,
            "the same of the exact softmax P this run is compared with: how many keys a row of this input needs "
            "(how sparse attention could be here), mean over rows, " + scope,
            false);
    if (m.row_entropy)
        w.add("row_entropy", "entropy of P_eff", "H(P_eff)", m.row_entropy, fmt("%.2f nats", *m.row_entropy), kNeutral,
            "mean over rows of −Σ_j P_eff_ij ln P_eff_ij, " + scope + "; exp(entropy) is the number of equally "
            "weighted keys with the same spread (0: one key; ln n: uniform)",
            false);
    if (m.row_entropy_exact)
        w.add("row_entropy_exact", "entropy of exact P", "H(P)", m.row_entropy_exact,
            fmt("%.2f nats", *m.row_entropy_exact), kNeutral,
            "mean over rows of −Σ_j P_ij ln P_ij of the exact softmax P this run is compared with, " + scope, false);
}

/// The run's measured time and peak tracked memory (all heads).
void add_cost_badges(BadgeWriter& w, const RunResult& r) {
    w.add("time", "time", "time", r.cost.time_ms, fmt("%.2f ms", r.cost.time_ms), kNeutral,
        "measured wall time of this run's compute part (all heads), once (noisy; lessons time medians of alternating "
        "runs)", false);
    w.add("memory", "memory", "memory", double(r.cost.peak_bytes), format_bytes(double(r.cost.peak_bytes)), kNeutral,
        "peak tracked bytes held during the run (all heads)", false);
}

}  // namespace

std::vector<Badge> run_badges(const RunResult& r, int head, int drawn_head) {
    const int heads = int(r.metrics.heads.size());
    const bool own = head >= 0 && head < heads;
    const MetricValues& m = own ? r.metrics.heads[size_t(head)] : r.metrics;
    // Which heads every number of this list is over: said in a badge of its own and in every tooltip.
    const std::string scope = own ? "head " + std::to_string(head) : "mean over heads";
    BadgeWriter w;
    add_scope_badge(w, heads, own, head, scope);
    add_error_badges(w, r, m, scope);
    add_mass_badges(w, r, m, scope);
    add_concentration_badges(w, r, m, own, scope);
    add_cost_badges(w, r);
    std::vector<Badge>& out = w.out;
    if (!own && heads > 1 && drawn_head >= 0 && drawn_head < heads) {
        const std::vector<Badge> drawn = run_badges(r, drawn_head);
        for (Badge& b : out)
            for (const Badge& d : drawn)
                if (d.id == b.id && d.number && b.id != "density")
                    b.help += "\n\nHead " + std::to_string(drawn_head) + " (drawn): " + d.value + ".";
    }
    return out;
}

std::vector<const Badge*> shown_badges(const std::vector<Badge>& all, bool compact,
                                       const std::vector<std::string>& lesson_metrics) {
    std::vector<const Badge*> out;
    auto in_lesson = [&](const Badge& b) {
        return std::find(lesson_metrics.begin(), lesson_metrics.end(), b.id) != lesson_metrics.end();
    };
    if (!compact) {
        for (const Badge& b : all) out.push_back(&b);
        return out;
    }
    // A lesson's own metrics (what its text tells the reader to compare), then the key numbers. Which heads they are
    // over is said once for every cell in the strip above the grid (draw_shared_strip), not in each compact cell,
    // where the badge would cost a line of heatmap.
    for (const Badge& b : all)
        if (in_lesson(b)) out.push_back(&b);
    if (lesson_metrics.empty())
        for (const Badge& b : all)
            if (b.key && b.id != "scope") out.push_back(&b);
    return out;
}

float badge_width(const Badge& b, bool compact) {
    const std::string& label = compact ? b.short_label : b.label;
    const std::string& value = compact ? b.short_value : b.value;
    const std::string text = value.empty() ? label : label + " " + value;
    return ImGui::CalcTextSize(text.c_str()).x + ImGui::GetStyle().FramePadding.x * 2 + 4;
}

int badge_lines(const std::vector<const Badge*>& shown, bool compact, float width) {
    std::vector<float> widths;
    for (const Badge* b : shown) widths.push_back(badge_width(*b, compact));
    if (compact) widths.push_back(ImGui::CalcTextSize("more").x + ImGui::GetStyle().FramePadding.x * 2 + 4);
    int lines = widths.empty() ? 0 : 1;
    float x = 0;
    for (float w : widths) {
        if (x > 0 && x + w > width) ++lines, x = 0;
        x += w;
    }
    return lines;
}

namespace {

void draw_one(const std::string& text, ImVec4 colour, const std::string& help) {
    const float w = ImGui::CalcTextSize(text.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
    if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();  // wrap instead of clipping
    ImGui::PushStyleColor(ImGuiCol_Button, colour);
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, colour);
    ImGui::PushStyleColor(ImGuiCol_ButtonActive, colour);
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.05f, 0.05f, 0.07f, 1));
    ImGui::SmallButton(text.c_str());
    ImGui::PopStyleColor(4);
    if (ImGui::BeginItemTooltip()) {
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
        ImGui::TextUnformatted(help.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
    ImGui::SameLine(0, 4);
}

}  // namespace

void draw_badges(const std::vector<const Badge*>& shown, const std::vector<Badge>& all, bool compact) {
    for (const Badge* b : shown) {
        const std::string& label = compact ? b->short_label : b->label;
        const std::string& value = compact ? b->short_value : b->value;
        draw_one(value.empty() ? label : label + " " + value, b->colour, b->label + ": " + b->help);
    }
    if (compact) {
        std::string every;
        for (const Badge& b : all) every += b.label + (b.value.empty() ? "" : " " + b.value) + "\n";
        if (!every.empty()) every.pop_back();
        draw_one("more", kNeutral, every);
    }
    ImGui::NewLine();
}

}  // namespace attnscope::gui
