#include "core/data/ggml_messages.h"

#include <cstdio>
#include <mutex>

#include "core/error.h"

#include <ggml.h>
#include <llama.h>

namespace attnscope {

namespace {
thread_local GgmlMessages* t_current = nullptr;
}  // namespace

struct GgmlMessagesSink {
    static void log(ggml_log_level level, const char* text, void*) {
        GgmlMessages* sink = t_current;
        if (!sink || !text) return;
        // CONT lines continue the previous one; only errors and warnings explain a failure.
        if (level != GGML_LOG_LEVEL_ERROR && level != GGML_LOG_LEVEL_WARN && level != GGML_LOG_LEVEL_CONT) return;
        std::string line(text);
        while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
        // "gguf_init_from_file_impl: invalid magic…" → "invalid magic…": the function name means nothing to a user.
        if (const size_t colon = line.find(": "); colon != std::string::npos && line.find(' ') > colon)
            line.erase(0, colon + 2);
        if (line.empty()) return;
        if (!sink->m_lines.empty()) sink->m_lines += level == GGML_LOG_LEVEL_CONT ? " " : "; ";
        sink->m_lines += line;
    }
};

namespace {

/// ggml_abort's callback. Inside a GgmlMessages scope the failed check becomes an Error thrown through ggml's frames
/// (cmake/LlamaVocab.cmake compiles its C files with unwind tables); the caller's catch turns it into its sentence.
/// Elsewhere it prints what ggml would have printed, and ggml aborts as before.
void abort_as_error(const char* message) {
    if (t_current)
        throw Error(std::string("llama.cpp stopped on an internal check: ") + (message ? message : "(no message)"));
    std::fprintf(stderr, "%s\n", message ? message : "ggml_abort");
}

}  // namespace

GgmlMessages::GgmlMessages() {
    static std::once_flag installed;
    std::call_once(installed, [] {
        ggml_log_set(&GgmlMessagesSink::log, nullptr);
        llama_log_set(&GgmlMessagesSink::log, nullptr);
        ggml_set_abort_callback(&abort_as_error);
    });
    m_outer = t_current;
    t_current = this;
}

GgmlMessages::~GgmlMessages() { t_current = m_outer; }

std::string GgmlMessages::text(const std::string& fallback) const { return m_lines.empty() ? fallback : m_lines; }

}  // namespace attnscope
