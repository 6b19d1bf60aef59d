// attnscope — what ggml and llama.cpp log while they read a file, caught instead of printed: their reader reports a
// failure by logging it and returning null, and the log is the only place the reason is written.
#pragma once
#include <string>

namespace attnscope {

/// While alive, collects this thread's ggml and llama.cpp error and warning lines (info lines are dropped; nothing is
/// printed), and turns their internal checks (GGML_ASSERT, GGML_ABORT: an abort() of the whole process) into an Error
/// thrown from the failed check, naming it. Installs the process-wide callbacks on first use.
class GgmlMessages {
public:
    GgmlMessages();
    ~GgmlMessages();
    GgmlMessages(const GgmlMessages&) = delete;
    GgmlMessages& operator=(const GgmlMessages&) = delete;

    /// The collected lines joined by "; " without the functions' names, or `fallback` when none were logged.
    std::string text(const std::string& fallback) const;

private:
    GgmlMessages* m_outer = nullptr;  // an enclosing collector on this thread, restored on exit
    friend struct GgmlMessagesSink;
    std::string m_lines;
};

}  // namespace attnscope
