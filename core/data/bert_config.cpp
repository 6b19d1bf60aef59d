#include "core/data/bert_config.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"

namespace attnscope {

BertConfig read_bert_config(const std::string& dir) {
    const std::filesystem::path path = std::filesystem::path(dir) / "config.json";
    std::ifstream in(path);
    if (!in)
        throw Error("no model at '" + dir + "' (" + path.filename().string() +
                    " not found): run scripts/setup.sh to install all-MiniLM-L6-v2, or pass --model DIR with a "
                    "BERT-family folder (config.json, model.safetensors, vocab.txt)");
    nlohmann::json j;
    try {
        std::ostringstream ss;
        ss << in.rdbuf();
        j = nlohmann::json::parse(ss.str());
    } catch (const nlohmann::json::exception& e) {
        throw Error(path.string() + " is not valid JSON (" + e.what() + "); reinstall the model with scripts/setup.sh");
    }
    if (!j.is_object()) throw Error(path.string() + " is not a JSON object of settings; reinstall the model with scripts/setup.sh");
    // A value of the wrong type names its key (nlohmann's own message would not).
    auto text = [&](const char* key, const std::string& fallback) {
        if (!j.contains(key)) return fallback;
        if (!j[key].is_string()) throw Error(path.string() + ": '" + key + "' must be a string");
        return j[key].get<std::string>();
    };
    auto flag = [&](const char* key) {
        if (!j.contains(key) || j[key].is_null()) return false;
        if (!j[key].is_boolean()) throw Error(path.string() + ": '" + key + "' must be true or false");
        return j[key].get<bool>();
    };
    BertConfig c;
    c.model_type = text("model_type", "");
    if (c.model_type != "bert")
        throw Error(path.string() + ": model_type '" + c.model_type +
                    "' is not supported; attnscope runs BERT encoders (model_type \"bert\"), e.g. all-MiniLM-L6-v2 "
                    "or bert-base-uncased");
    auto need_int = [&](const char* key) {
        if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<int64_t>() <= 0 || j[key].get<int64_t>() > 1 << 20)
            throw Error(path.string() + ": '" + key + "' is missing or not a positive integer; is this a BERT config?");
        return j[key].get<int>();
    };
    c.vocab_size = need_int("vocab_size");
    c.hidden = need_int("hidden_size");
    c.layers = need_int("num_hidden_layers");
    c.heads = need_int("num_attention_heads");
    c.intermediate = need_int("intermediate_size");
    c.max_positions = need_int("max_position_embeddings");
    c.type_vocab = j.contains("type_vocab_size") ? need_int("type_vocab_size") : 2;
    if (j.contains("layer_norm_eps")) {
        const nlohmann::json& eps = j["layer_norm_eps"];
        if (!eps.is_number() || !(eps.get<double>() > 0) || eps.get<double>() > 1)
            throw Error(path.string() + ": 'layer_norm_eps' must be a number in (0, 1]");
        c.layer_norm_eps = eps.get<double>();
    }
    if (c.hidden % c.heads != 0)
        throw Error(path.string() + ": hidden_size " + std::to_string(c.hidden) + " is not a multiple of " +
                    std::to_string(c.heads) + " heads");
    const std::string act = text("hidden_act", "gelu");
    if (act == "gelu_new" || act == "gelu_pytorch_tanh") c.gelu_tanh = true;
    else if (act != "gelu")
        throw Error(path.string() + ": hidden_act '" + act + "' is not supported (gelu, gelu_new, gelu_pytorch_tanh)");
    const std::string pos = text("position_embedding_type", "absolute");
    if (pos != "absolute")
        throw Error(path.string() + ": position_embedding_type '" + pos + "' is not supported (absolute only)");
    if (flag("is_decoder") || flag("add_cross_attention"))
        throw Error(path.string() + ": decoder BERT configurations are not supported; use an encoder");
    return c;
}

}  // namespace attnscope
