// attnscope — room for a plot (see plot_room.h).
#include "app/gui/plot_room.h"

#include "app/gui/app.h"  // hint_text

namespace attnscope::gui {

bool plot_fits(ImVec2 size) {
    const float line = ImGui::GetTextLineHeight(), glyph = ImGui::CalcTextSize("0").x;
    if (size.y >= 7 * line && size.x >= 18 * glyph) return true;
    hint_text("Too small to draw at this text size: give this panel more room (drag its border, or View ▸ Presentation "
              "mode) or lower the text size (Ctrl −).");
    return false;
}

}  // namespace attnscope::gui
