#include "core/variants/modifiers.h"

#include <algorithm>

#include "core/error.h"
#include "core/format.h"

namespace attnscope {

namespace {

constexpr int kScoreNone = 0, kScoreAlibi = 1, kScoreSoftcap = 2;
constexpr int kMaskNone = 0, kMaskPrefix = 1, kMaskDocument = 2;

/// A special token of the encoder ([CLS], [SEP], [PAD], …): it never opens a document of its own.
bool is_special_token(const std::string& t) { return t.size() >= 3 && t.front() == '[' && t.back() == ']'; }

bool ends_sentence(const std::string& t) { return t == "." || t == "!" || t == "?"; }

/// Segment ids (non-decreasing) of n positions from sorted document starts.
std::vector<int> segments_from_starts(const std::vector<int>& starts, int n) {
    std::vector<int> segment(size_t(n), 0);
    int id = 0;
    size_t next = 0;
    for (int i = 0; i < n; ++i) {
        while (next < starts.size() && starts[next] <= i) {
            if (starts[next] > 0) ++id;
            ++next;
        }
        segment[size_t(i)] = id;
    }
    return segment;
}

}  // namespace

BlockCover MaskMod::cover(int n, int b, int I, int J) const {
    const int i0 = I * b, i1 = std::min(n, i0 + b) - 1, j0 = J * b, j1 = std::min(n, j0 + b) - 1;
    switch (kind) {
        case MaskModKind::None: return BlockCover::All;
        case MaskModKind::PrefixLm:
            // Kept: j < p or j ≤ i. Every cell when the block's last key is in the prefix or before its first query.
            if (j1 < prefix || j1 <= i0) return BlockCover::All;
            if (j0 >= prefix && j0 > i1) return BlockCover::None;
            return BlockCover::Partial;
        case MaskModKind::Document: {
            // Segments never decrease, so each block spans one range of documents.
            const int si0 = segment[size_t(i0)], si1 = segment[size_t(i1)];
            const int sj0 = segment[size_t(j0)], sj1 = segment[size_t(j1)];
            if (si0 == si1 && sj0 == sj1 && si0 == sj0) return BlockCover::All;
            if (si1 < sj0 || sj1 < si0) return BlockCover::None;
            return BlockCover::Partial;
        }
    }
    return BlockCover::Partial;
}

std::string Modifiers::key() const {
    std::string k = std::to_string(int(score.kind));
    if (score.kind == ScoreModKind::Softcap) k += ":" + format_fixed(score.cap, 6);
    k += "|" + std::to_string(int(mask.kind));
    if (mask.kind == MaskModKind::PrefixLm) k += ":" + std::to_string(mask.prefix);
    if (mask.kind == MaskModKind::Document)
        for (size_t i = 1; i < mask.segment.size(); ++i)
            if (mask.segment[i] != mask.segment[i - 1]) k += ":" + std::to_string(i);
    return k;
}

std::string Modifiers::label() const {
    std::vector<std::string> parts;
    if (score.kind == ScoreModKind::Alibi) parts.push_back("ALiBi");
    if (score.kind == ScoreModKind::Softcap) parts.push_back("soft-cap c = " + format_significant(score.cap, 4));
    if (mask.kind == MaskModKind::PrefixLm) parts.push_back("prefix-LM p = " + std::to_string(mask.prefix));
    if (mask.kind == MaskModKind::Document) {
        const int docs = mask.segment.empty() ? 0 : mask.segment.back() + 1;
        parts.push_back("document (" + std::to_string(docs) + " part" + (docs == 1 ? "" : "s") + ")");
    }
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
    return out;
}

std::vector<ParamSpec> score_modifier_params() {
    return {choice_param("score_mod", "mod",
                         "score modifier: none; alibi adds −m_h·|i − j| with m_h = 2^(−8(h+1)/H) for H a power of two, the "
                         "paper's interleaved ladder otherwise (Press et al. 2022); "
                         "softcap replaces the logit x by c·tanh(x/c) (Gemma 2). Changes the model: errors are also "
                         "measured against exact attention with the same modifier",
                         {"none", "alibi", "softcap"}, kScoreNone),
            real_param("cap", "c", "soft-cap c: logits are squashed into (−c, c) (score_mod softcap only)", 50, 1e-3,
                       1e6)};
}

std::vector<ParamSpec> mask_modifier_params() {
    return {choice_param("mask_mod", "mask",
                         "mask modifier, intersected with the pattern: prefix (prefix-LM: every query sees the first "
                         "p positions, the rest causally) or document (block-diagonal: a query sees only its own "
                         "document). Changes the model like a score modifier",
                         {"none", "prefix", "document"}, kMaskNone),
            int_param("prefix", "p", "prefix length p of the prefix-LM mask (mask_mod prefix only)", 16, 0, 2097152),
            list_param("boundaries", "docs",
                       "document start positions (mask_mod document); none on text: one document per sentence", "")};
}

std::vector<ParamSpec> with_modifier_params(std::vector<ParamSpec> own, bool masks) {
    for (ParamSpec& p : score_modifier_params()) own.push_back(std::move(p));
    if (masks)
        for (ParamSpec& p : mask_modifier_params()) own.push_back(std::move(p));
    return own;
}

bool is_modifier_param(const std::string& name) {
    return name == "score_mod" || name == "cap" || name == "mask_mod" || name == "prefix" || name == "boundaries";
}

bool modifier_param_applies(const std::string& name, const Params& p) {
    if (name == "cap") return int(p.get_or("score_mod", kScoreNone)) == kScoreSoftcap;
    if (name == "prefix") return int(p.get_or("mask_mod", kMaskNone)) == kMaskPrefix;
    if (name == "boundaries") return int(p.get_or("mask_mod", kMaskNone)) == kMaskDocument;
    return is_modifier_param(name);
}

std::pair<std::string, std::string> modifier_switch_for(const std::string& name) {
    if (name == "cap") return {"score_mod", "softcap"};
    if (name == "prefix") return {"mask_mod", "prefix"};
    if (name == "boundaries") return {"mask_mod", "document"};
    return {};
}

std::string modifier_summary(const Params& p) {
    std::string out;
    const auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
    const int score = int(p.get_or("score_mod", kScoreNone)), mask = int(p.get_or("mask_mod", kMaskNone));
    if (score == kScoreAlibi) add("ALiBi");
    if (score == kScoreSoftcap) add("soft-cap c = " + format_significant(p.get_or("cap", 50.0), 4));
    if (mask == kMaskPrefix) add("prefix-LM p = " + std::to_string(int(p.get_or("prefix", 16))));
    if (mask == kMaskDocument) {
        const bool given = p.has("boundaries") && !p.get_list("boundaries").empty();
        add(given ? "document (given boundaries)" : "document by sentences");
    }
    return out.empty() ? "none" : out;
}

bool has_modifiers(const Params& p) {
    return int(p.get_or("score_mod", kScoreNone)) != kScoreNone || int(p.get_or("mask_mod", kMaskNone)) != kMaskNone;
}

bool has_mask_modifier(const Params& p) { return int(p.get_or("mask_mod", kMaskNone)) != kMaskNone; }

bool has_positional_modifiers(const Params& p) {
    return int(p.get_or("score_mod", kScoreNone)) == kScoreAlibi || int(p.get_or("mask_mod", kMaskNone)) != kMaskNone;
}

std::vector<int> sentence_starts(const std::vector<std::string>& tokens) {
    std::vector<int> starts;
    if (tokens.empty()) return starts;
    starts.push_back(0);
    for (size_t k = 0; k + 1 < tokens.size(); ++k)
        if (ends_sentence(tokens[k]) && !is_special_token(tokens[k + 1])) starts.push_back(int(k + 1));
    return starts;
}

Modifiers modifiers_of(const Params& p, const Heads& x) {
    Modifiers m;
    const int score = int(p.get_or("score_mod", kScoreNone));
    if (score == kScoreAlibi) m.score.kind = ScoreModKind::Alibi;
    if (score == kScoreSoftcap) m.score.kind = ScoreModKind::Softcap;
    m.score.cap = float(p.get_or("cap", 50.0));
    m.score.heads = std::max(1, x.heads());
    const int mask = int(p.get_or("mask_mod", kMaskNone));
    const int n = x.n();
    if (mask == kMaskPrefix) {
        m.mask.kind = MaskModKind::PrefixLm;
        m.mask.prefix = p.get_int("prefix");
    } else if (mask == kMaskDocument) {
        m.mask.kind = MaskModKind::Document;
        std::vector<int> starts = p.has("boundaries") ? p.get_list("boundaries") : std::vector<int>{};
        if (starts.empty()) {
            if (x.tokens.empty())
                throw Error("mask_mod document needs document boundaries on an input without text: set boundaries "
                            "to the start positions, e.g. boundaries=0," + std::to_string(std::max(1, n / 3)) + "," +
                            std::to_string(std::max(2, 2 * n / 3)) + " for this input's n = " + std::to_string(n));
            starts = sentence_starts(x.tokens);
        }
        for (int s : starts)
            if (s < 0 || s >= n)
                throw Error("mask_mod document: boundary " + std::to_string(s) + " is outside the input's positions 0…" +
                            std::to_string(n - 1) + ": give start positions below n = " + std::to_string(n));
        std::sort(starts.begin(), starts.end());
        m.mask.segment = segments_from_starts(starts, n);
    }
    return m;
}

}  // namespace attnscope
