// attnscope — strict UTF-8 decoding and encoding for user text.
#pragma once
#include <string>
#include <string_view>

namespace attnscope {

/// Decodes UTF-8 to code points. Throws Error naming `what` and the byte offset of the first invalid
/// sequence (bad lead byte, truncated or overlong sequence, surrogate, code point above U+10FFFF).
std::u32string utf8_decode(std::string_view bytes, const std::string& what = "text");
/// Appends the UTF-8 encoding of c to out.
void utf8_append(char32_t c, std::string& out);
/// Encodes code points as UTF-8.
std::string utf8_encode(std::u32string_view text);

}  // namespace attnscope
