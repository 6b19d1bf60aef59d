#include "core/data/utf8.h"

#include <cstdio>

#include "core/error.h"

namespace attnscope {

namespace {

[[noreturn]] void invalid(const std::string& what, size_t offset, unsigned char byte, const char* why) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", byte);
    throw Error(what + " is not valid UTF-8: " + why + " at byte offset " + std::to_string(offset) + " (byte " + hex +
                "); save the text as UTF-8 and retry");
}

}  // namespace

std::u32string utf8_decode(std::string_view s, const std::string& what) {
    std::u32string out;
    out.reserve(s.size());
    size_t k = 0;
    while (k < s.size()) {
        const auto b0 = static_cast<unsigned char>(s[k]);
        if (b0 < 0x80) {
            out.push_back(b0);
            ++k;
            continue;
        }
        int len = 0;
        char32_t c = 0, min = 0;
        if ((b0 & 0xE0) == 0xC0) len = 2, c = b0 & 0x1F, min = 0x80;
        else if ((b0 & 0xF0) == 0xE0) len = 3, c = b0 & 0x0F, min = 0x800;
        else if ((b0 & 0xF8) == 0xF0) len = 4, c = b0 & 0x07, min = 0x10000;
        else invalid(what, k, b0, (b0 & 0xC0) == 0x80 ? "unexpected continuation byte" : "invalid lead byte");
        if (k + len > s.size()) invalid(what, k, b0, "truncated multi-byte sequence");
        for (int i = 1; i < len; ++i) {
            const auto b = static_cast<unsigned char>(s[k + i]);
            if ((b & 0xC0) != 0x80) invalid(what, k + i, b, "missing continuation byte");
            c = (c << 6) | (b & 0x3F);
        }
        if (c < min) invalid(what, k, b0, "overlong encoding");
        if (c >= 0xD800 && c <= 0xDFFF) invalid(what, k, b0, "encoded surrogate");
        if (c > 0x10FFFF) invalid(what, k, b0, "code point above U+10FFFF");
        out.push_back(c);
        k += len;
    }
    return out;
}

void utf8_append(char32_t c, std::string& out) {
    if (c < 0x80) {
        out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (c >> 6)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (c >> 12)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (c >> 18)));
        out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
}

std::string utf8_encode(std::u32string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char32_t c : text) utf8_append(c, out);
    return out;
}

}  // namespace attnscope
