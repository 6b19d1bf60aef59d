// Fuzz target: parameter values and sweep ranges as the command line takes them. The input is lines: the first
// is the variant list (--variant), the last a sweep range (--param NAME=RANGE), the others --set assignments.
// Bad values must end in attnscope::Error; every accepted value lies inside its parameter's range, and an accepted
// range yields 1 … 1000 finite values from its start towards its stop.
#include <cmath>

#include "app/cli/input_options.h"
#include "core/error.h"
#include "core/session/metric_sweep.h"
#include "core/variants/registry.h"
#include "tests/fuzz/fuzz_util.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto lines = fuzz::split_parts(fuzz::as_text(data, size), "\n");
    if (lines.size() < 2) return 0;
    std::vector<std::string> sets;
    for (size_t k = 1; k + 1 < lines.size(); ++k) sets.emplace_back(lines[k]);
    try {
        for (const VariantRequest& r : cli::build_variant_requests({std::string(lines[0])}, sets, false)) {
            const Variant& v = find_variant(r.id);
            for (const auto& [name, value] : r.params.numbers()) {
                const ParamSpec* spec = find_param(v.info().params, name);
                ATTNSCOPE_FUZZ_REQUIRE(spec != nullptr && std::isfinite(value));
                validate_param(r.id, *spec, value);  // throws (uncaught: a finding) when out of range
            }
        }
    } catch (const Error&) {
    }
    try {
        const auto [name, range_text] = cli::split_assignment(std::string(lines.back()));
        const SweepRange range = parse_sweep_range(range_text);
        const std::vector<double> values = range.values();
        ATTNSCOPE_FUZZ_REQUIRE(!values.empty() && values.size() <= 1000);
        for (double x : values) ATTNSCOPE_FUZZ_REQUIRE(std::isfinite(x));
        ATTNSCOPE_FUZZ_REQUIRE(values.front() == range.start);
    } catch (const Error&) {
    }
    return 0;
}
