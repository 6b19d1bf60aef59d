#include "core/session/npy_bundle.h"

#include <filesystem>
#include <map>

#include "core/error.h"
#include "core/session/export.h"
#include "core/session/result_json.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope {

nlohmann::json write_npy_bundle(const std::string& dir, const Heads& heads, const std::vector<RunResult>& results,
                                const nlohmann::json& extra_input) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw Error("cannot create the folder '" + dir + "' for .npy files: " + ec.message());
    const std::filesystem::path root(dir);
    auto path = [&](const std::string& name) { return (root / name).string(); };

    nlohmann::json input = input_to_json(heads);
    input.update(extra_input);
    input["files"] = {{"q", "q.npy"}, {"k", "k.npy"}, {"v", "v.npy"}};
    write_npy(path("q.npy"), heads.Q);
    write_npy(path("k.npy"), heads.K);
    write_npy(path("v.npy"), heads.V);
    if (!heads.tokens.empty()) {
        std::string lines;
        for (const std::string& t : heads.tokens) lines += t + "\n";
        write_file_atomically(path("tokens.txt"), lines);
        input["files"]["tokens"] = "tokens.txt";
    }

    nlohmann::json index = {{"format", "attnscope npy bundle 1"},
                            {"layout", "every array is float32, C order, shape (H, rows, cols): q, k (H, n, d); v and "
                                       "O (H, n, dv); P_eff (H, n, n), row i = query i"},
                            {"input", input},
                            {"results", nlohmann::json::array()}};
    std::map<std::string, int> seen;
    for (const RunResult& r : results) {
        // Named by instance (svd-r8), so two instances of one variant never share a file; an exact repeat gets -2, -3.
        const VariantInfo& info = find_variant(r.variant).info();
        const std::string slug = instance_slug(info, r.params);
        const int repeat = ++seen[slug];
        const std::string label = repeat == 1 ? slug : slug + "-" + std::to_string(repeat);
        nlohmann::json entry = result_to_json(r);
        entry["label"] = label;
        entry["O"] = "O-" + label + ".npy";
        write_npy(path(entry["O"]), r.O);
        if (r.P_eff) {
            entry["P_eff"] = "P_eff-" + label + ".npy";
            write_npy(path(entry["P_eff"]), *r.P_eff);
        } else {
            entry["P_eff"] = nullptr;  // not materialised: above the matrix limit, or the variant defines no P̃
        }
        index["results"].push_back(std::move(entry));
    }
    write_file_atomically(path("index.json"), index.dump(2) + "\n");
    return index;
}

}  // namespace attnscope
