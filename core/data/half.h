// attnscope — IEEE half (F16) and bfloat16 (BF16) to float, for weights and tensors stored at 16 bits.
#pragma once
#include <cstdint>
#include <cstring>

namespace attnscope {

/// bfloat16 bits → float (the high half of a float32).
inline float bf16_to_float(uint16_t bits) {
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

/// IEEE 754 binary16 bits → float, subnormals, infinities and NaN included.
inline float f16_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu, u;
    if (exponent == 0x1F) {
        u = sign | 0x7F800000u | (mantissa << 13);
    } else if (exponent == 0) {
        if (mantissa == 0) {
            u = sign;
        } else {  // subnormal: normalise
            int shift = 0;
            while (!(mantissa & 0x400u)) mantissa <<= 1, ++shift;
            mantissa &= 0x3FFu;
            u = sign | (static_cast<uint32_t>(127 - 15 - shift + 1) << 23) | (mantissa << 13);
        }
    } else {
        u = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    }
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

}  // namespace attnscope
