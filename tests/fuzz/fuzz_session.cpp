// Fuzz target: the GUI's session file. Bad input must end in attnscope::Error (the GUI keeps the file as .bad and
// starts with defaults); an accepted session, written out again, must read back into a fresh app and write the
// same text (what the app saves it can load).
#include "app/gui/app.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_util.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(fuzz::as_text(data, size));
    std::string saved;
    {
        gui::App app;
        try {
            gui::session_from_json(app, text);
        } catch (const Error&) {
            return 0;
        }
        saved = gui::session_to_json(app);
    }
    gui::App again;
    gui::session_from_json(again, saved);  // must not throw: the app wrote it
    ATTNSCOPE_FUZZ_REQUIRE(gui::session_to_json(again) == saved);
    return 0;
}
