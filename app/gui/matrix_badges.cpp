// attnscope — metric badges (see matrix_badges.h).
#include "app/gui/matrix_badges.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/format.h"
#include "core/session/metric_table.h"
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

/// The flags that qualify every number after them: a different model, a pattern that is dense at this n.
void add_flag_badges(BadgeWriter& w, const RunResult& r) {
    if (r.model == ExactModel::Different)
        w.add("different_model", "different model", "different model", std::nullopt, "", kNeutral,
            exact_model_sentence(r.model), true);
    if (!r.metrics.dense_warning.empty())
        w.add("dense_warning", "dense at this n", "dense at this n", std::nullopt, "", {0.95f, 0.65f, 0.30f, 1},
            r.metrics.dense_warning, true);
}

/// The badge of one metric of metric_table(), from its row; what a different model or a changed model says
/// instead is decided here.
void add_metric_badge(BadgeWriter& w, const RunResult& r, const MetricSpec& f, const MetricValues& m, bool own,
                      const std::string& scope) {
    const bool all_heads = f.lists & kAllHeadsOnly;
    std::optional<double> value = f.field ? (all_heads ? r.metrics : m).*f.field : metric_value(f, r);
    if (!value) return;
    const std::string id = f.id;
    const std::string model = exact_model_sentence(r.model);
    std::string label = f.label, short_label = f.short_label, help = metric_help(f, scope, model);
    bool graded = f.lists & kGraded;
    if (id == "mass_ceiling") {
        if (!m.mass_recall) return;  // a ceiling beside nothing it bounds
        help += ": this pattern reaches " + fmt("%.0f%%", 100 * *m.mass_recall / std::max(1e-12, *value)) + " of it";
    }
    if (own && all_heads) label += " (all heads)", short_label += "·all";
    if (r.model == ExactModel::Different && id == "rel_err_out") {
        label = short_label = "Δ vs softmax", graded = false;
        help = "‖O − O_full‖_F / ‖O_full‖_F, " + scope + ": how far this model's output is from softmax attention's "
               "(not an approximation error: the model is a different one)";
    } else if (r.model == ExactModel::Different && id == "rel_err_attn") {
        label = short_label = "ΔP vs softmax", graded = false;
        help = "‖P_eff − P‖_F / ‖P‖_F, " + scope + ": how far this model's matrix is from softmax attention's P (a "
               "different model, so not an approximation error)";
    } else if (r.model != ExactModel::Softmax && id == "rel_err_out") {
        help = "‖O − O_full‖_F / ‖O_full‖_F against exact softmax attention, " + scope + ": the change of model "
               "(shared QK, modifiers) plus the approximation; rel_err_model separates the approximation";
    }
    if (f.lists & kRelativeError) help += above_one(*value);
    if (!std::isfinite(*value)) graded = false;
    const ImVec4 colour =
        !graded ? kNeutral : quality(f.direction == MetricDirection::HigherIsBetter ? 1 - *value : *value);
    w.add(f.id, label, short_label, value, format_metric_value(f, *value), colour, help, f.lists & kKeyBadge);
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
    add_flag_badges(w, r);
    for (const MetricSpec& f : metric_table()) add_metric_badge(w, r, f, m, own, scope);
    std::vector<Badge>& out = w.out;
    if (!own && heads > 1 && drawn_head >= 0 && drawn_head < heads) {
        const std::vector<Badge> drawn = run_badges(r, drawn_head);
        for (Badge& b : out)
            for (const Badge& d : drawn)
                if (d.id == b.id && d.number && !(find_metric(b.id) && (find_metric(b.id)->lists & kAllHeadsOnly)))
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
