// attnscope — the session file (File → Save session; gui / figure / run --session): its version, "input"
// (core/session/input_json.h), "variants" (core/session/variant_json.h) and the "view" keys a figure draws with.
// The GUI writes and reads these keys through here and adds its own beside them (dock layout, lesson window,
// the other panels, zoom); the CLI reads a session through here alone, without the GUI.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/session/experiment.h"
#include "core/session/worker.h"

namespace attnscope {

/// The version this build writes and the only one it reads.
inline constexpr int kSessionVersion = 1;

/// The matrix view of a session: the keys of "view" a figure draws with (the GUI keeps the rest of "view").
struct SessionView {
    int head = 0;            // "head": the head shown
    bool show_mask = true;   // "mask": cells tinted by why they are allowed
    bool show_diff = false;  // "diff": P_eff − P instead of P_eff
    bool log_scale = true;   // "log": log10 colour scale
    float decades = 4;       // "decades": depth of the log scale
    DisplayOrder order = DisplayOrder::Positions;  // "order": positions, lsh or clusters (display_order.h)
    int order_round = 0;     // "order_round": the lsh round whose sorted order "lsh" shows
};

/// What a session file means outside the GUI.
struct SessionFile {
    InputSpec input;
    std::vector<VariantRequest> variants;  // in display order; ids this build lacks are left out
    SessionView view;
    std::string setup_lesson;  // non-empty: the session means this lesson's own setup instead of the three above
                               // (session_means_lesson_setup), which core/lessons/preset.h's lesson_setup reads
};

/// The input of a session without "input" (and the GUI's first start): the default sample text through the
/// encoder, layer 5, when the model is installed, else the synthetic defaults of input_json_defaults().
InputSpec default_session_input();

/// The variants of a session without "variants" (and the GUI's first start): full, bigbird and lsh, default parameters.
std::vector<VariantRequest> default_session_variants();

/// The JSON object of a session file's text, its version checked; throws Error saying what is wrong and what to do.
nlohmann::json parse_session_text(const std::string& text);

/// "input" of a session object (default_session_input() when absent); throws Error naming the key.
InputSpec session_input_from_json(const nlohmann::json& session);
/// Writes "input" (the GUI adds its own display keys to it afterwards).
void session_input_to_json(const InputSpec& input, nlohmann::json& session);

/// "variants" of a session object (default_session_variants() when absent); throws Error naming the entry and key.
std::vector<VariantRequest> session_variants_from_json(const nlohmann::json& session);
/// Writes "variants".
void session_variants_to_json(const std::vector<VariantRequest>& variants, nlohmann::json& session);

/// The SessionView keys of "view" (the defaults when absent); throws Error naming `where` and the key. A lesson
/// preset's "view" has these keys too.
SessionView session_view_from_json(const nlohmann::json& session, const std::string& where = "the session's view");
/// Writes the SessionView keys into "view", leaving its other keys as they are.
void session_view_to_json(const SessionView& view, nlohmann::json& session);

/// The id in "lesson": {"id": ...} ("" when the session has no "lesson"); throws Error when "lesson" names none.
std::string session_lesson_from_json(const nlohmann::json& session);
/// True when the session names a lesson and has neither "input" nor "variants" (written by hand): it then means
/// the lesson's own setup.
bool session_means_lesson_setup(const nlohmann::json& session);

/// Everything above from a session file's text; throws Error as parse_session_text and the readers do.
SessionFile session_from_text(const std::string& text);

/// session_from_text of the file at `path`; throws Error naming the path when it cannot be read.
SessionFile read_session_file(const std::string& path);

}  // namespace attnscope
