// Fuzz target: a lesson file and its preset (the input and the variants a lesson sets up). Bad input must end in
// attnscope::Error naming what was wrong; an accepted preset's variants carry only values inside their ranges.
#include <cmath>

#include "core/error.h"
#include "core/lessons/lessons.h"
#include "core/lessons/preset.h"
#include "core/variants/registry.h"
#include "tests/fuzz/fuzz_util.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const Lesson lesson = parse_lesson(std::string(fuzz::as_text(data, size)));
        try {
            describe_input(preset_input_spec(lesson.preset));
        } catch (const Error&) {
        }
        for (const VariantRequest& r : preset_variants(lesson.preset)) {
            const Variant& v = find_variant(r.id);
            for (const auto& [name, value] : r.params.numbers()) {
                const ParamSpec* spec = find_param(v.info().params, name);
                ATTNSCOPE_FUZZ_REQUIRE(spec != nullptr && std::isfinite(value));
                validate_param(r.id, *spec, value);
            }
        }
    } catch (const Error&) {
    }
    return 0;
}
