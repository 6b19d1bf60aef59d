// attnscope — IEEE half (F16) and bfloat16 (BF16) to and from float, for weights and tensors stored at 16 bits and
// for the 16-bit inputs of the CUDA attention kernels. ATTNSCOPE_HD: the device's conversion kernels
// (core/backend/cuda/narrow.cuh) run these very functions. Bits move through memcpy, which device code has too.
#pragma once
#include <cstdint>
#include <cstring>

#include "core/backend/shared/hd.h"

namespace attnscope {

/// The bits of a float.
ATTNSCOPE_HD uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

/// The float of 32 bits.
ATTNSCOPE_HD float bits_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

/// bfloat16 bits → float (the high half of a float32).
ATTNSCOPE_HD float bf16_to_float(uint16_t bits) { return bits_float(static_cast<uint32_t>(bits) << 16); }

/// IEEE 754 binary16 bits → float, subnormals, infinities and NaN included.
ATTNSCOPE_HD float f16_to_float(uint16_t h) {
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
    return bits_float(u);
}

/// float → bfloat16 bits, rounded to nearest even (overflow rounds to ±inf; NaN stays a quiet NaN).
ATTNSCOPE_HD uint16_t float_to_bf16(float f) {
    uint32_t u = float_bits(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
    // Adding 0x7FFF plus the kept part's lowest bit carries into the kept part exactly when the dropped half is
    // above the midpoint, or at it with an odd kept part.
    u += 0x7FFFu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
}

/// float → IEEE 754 binary16 bits, rounded to nearest even: subnormal halves below 2⁻¹⁴, ±inf from 65520 on,
/// NaN stays a quiet NaN.
ATTNSCOPE_HD uint16_t float_to_f16(float f) {
    uint32_t u = float_bits(f);
    const uint32_t sign = u & 0x80000000u;
    u ^= sign;
    uint16_t h;
    if (u >= (127u + 16u) << 23) {  // |f| ≥ 2¹⁶ (or inf, NaN): beyond every half
        h = u > 0x7F800000u ? 0x7E00u : 0x7C00u;
    } else if (u < 113u << 23) {  // |f| < 2⁻¹⁴: a subnormal half or zero
        // Adding 0.5 (2⁻¹) lines the half's subnormal unit 2⁻²⁴ up with the float's last mantissa bit, so the
        // float addition itself rounds to nearest even; the mantissa left is the half's.
        const uint32_t magic_bits = 126u << 23;
        const float sum = bits_float(u) + bits_float(magic_bits);
        h = static_cast<uint16_t>(float_bits(sum) - magic_bits);
    } else {  // a normal half: rebias the exponent, round the 13 dropped mantissa bits to nearest even
        const uint32_t odd = (u >> 13) & 1u;
        u += ((15u - 127u) << 23) + 0xFFFu + odd;  // unsigned wrap rebiases; a carry may reach inf (0x7C00)
        h = static_cast<uint16_t>(u >> 13);
    }
    return static_cast<uint16_t>(h | (sign >> 16));
}

}  // namespace attnscope
