// attnscope — score and mask modifiers on the exact and masked variants (docs/VARIANTS.md "Modifiers").
// A score modifier changes every logit (ALiBi's distance penalty, Gemma 2's soft-cap: core/backend/interface/score_mod.h);
// a mask modifier removes cells (prefix-LM, document) and is combined with a variant's pattern by intersection.
// Both change the model, so a modified run is also measured against exact attention with the same modifiers
// (ExactModel::Modified). The parameters are the same on every variant that takes them (modifier_params()).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/backend/interface/score_mod.h"
#include "core/heads.h"
#include "core/variants/params.h"

namespace attnscope {

/// Which cells a mask modifier keeps.
enum class MaskModKind {
    None,      // every cell
    PrefixLm,  // j < p (the prefix is seen by everyone, bidirectionally inside it) or j ≤ i (causal after it)
    Document,  // i and j in the same document (block-diagonal by segment)
};

/// How a b×b block relates to a mask modifier.
enum class BlockCover {
    None,     // no cell of the block is kept
    Partial,  // some cells are kept
    All,      // every cell is kept
};

/// A mask modifier resolved for one input.
struct MaskMod {
    MaskModKind kind = MaskModKind::None;
    int prefix = 0;            // p (PrefixLm)
    std::vector<int> segment;  // (n) document of each position, non-decreasing (Document)

    /// Whether cell (i, j) is kept (always without a modifier).
    bool allows(int i, int j) const {
        if (kind == MaskModKind::PrefixLm) return j < prefix || j <= i;
        if (kind == MaskModKind::Document) return segment[size_t(i)] == segment[size_t(j)];
        return true;
    }
    /// Whether query i keeps any key of j0 … j1 (inclusive; always without a modifier).
    bool allows_any(int i, int j0, int j1) const {
        if (kind == MaskModKind::PrefixLm) return j0 < prefix || j0 <= i;
        // Document: segments never decrease, so j0 … j1 spans the documents segment[j0] … segment[j1].
        if (kind == MaskModKind::Document)
            return segment[size_t(j0)] <= segment[size_t(i)] && segment[size_t(i)] <= segment[size_t(j1)];
        return true;
    }
    /// How query block I and key block J (blocks of b over n positions) relate to the modifier.
    BlockCover cover(int n, int b, int I, int J) const;
};

/// The modifiers of one run, resolved for its input.
struct Modifiers {
    ScoreMod score;  // applied by the primitives to every logit
    MaskMod mask;    // intersected with the variant's pattern

    /// True when the run differs from plain softmax attention (a score or a mask modifier is on).
    bool any() const { return score.kind != ScoreModKind::None || mask.kind != MaskModKind::None; }
    /// True when the modifier reads positions (ALiBi, every mask): such runs keep positions in order (no
    /// permuted heads).
    bool positional() const { return score.kind == ScoreModKind::Alibi || mask.kind != MaskModKind::None; }
    /// Identifies the modified model (the reference cache's key): equal keys, equal references on one input.
    std::string key() const;
    /// What a title or a note says, e.g. "ALiBi", "soft-cap c = 50", "prefix-LM p = 16", "document (3 parts)".
    std::string label() const;
};

/// The score-modifier parameters: score_mod (none / alibi / softcap) and cap c.
std::vector<ParamSpec> score_modifier_params();
/// The mask-modifier parameters: mask_mod (none / prefix / document), prefix p and boundaries.
std::vector<ParamSpec> mask_modifier_params();
/// `own` followed by the score-modifier parameters and, when `masks`, the mask-modifier parameters.
std::vector<ParamSpec> with_modifier_params(std::vector<ParamSpec> own, bool masks);

/// True for the name of a modifier parameter (the GUI groups them apart from the variant's own).
bool is_modifier_param(const std::string& name);
/// True when modifier parameter `name` matters under `params` (cap only with softcap, prefix only with prefix-LM,
/// boundaries only with the document mask; the two switches always).
bool modifier_param_applies(const std::string& name, const Params& params);
/// The switch a modifier parameter needs to matter ({"mask_mod", "prefix"} for prefix, {"mask_mod", "document"} for
/// boundaries, {"score_mod", "softcap"} for cap), or two empty strings for any other name.
std::pair<std::string, std::string> modifier_switch_for(const std::string& name);
/// The modifiers `params` switch on, in words without the input ("none", "ALiBi, document by sentences").
std::string modifier_summary(const Params& params);

/// True when resolved params switch on any modifier (no input needed: what exact_model() asks).
bool has_modifiers(const Params& resolved);
/// True when resolved params switch on a mask modifier (prefix-LM or document).
bool has_mask_modifier(const Params& resolved);
/// True when resolved params switch on a modifier that reads positions (ALiBi or a mask).
bool has_positional_modifiers(const Params& resolved);
/// The modifiers of resolved params on this input; the document mask takes its boundaries from the params, or from
/// the sentences of a text input when none are given. Throws Error saying what to set when a document mask has
/// neither, or when a boundary lies outside the input.
Modifiers modifiers_of(const Params& resolved, const Heads& heads);
/// Start positions of the sentences of a token sequence: 0 and every position after a token that ends a sentence
/// (".", "!", "?"), except after the last token. WordPiece keeps these as tokens of their own.
std::vector<int> sentence_starts(const std::vector<std::string>& tokens);

}  // namespace attnscope
