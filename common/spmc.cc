// spmc: see spmc.h. The C++ is kept to this file (the library's API is C++);
// every call is wrapped so that no exception reaches C.
#include "spmc.h"

#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include <sentencepiece_processor.h>

struct spmc {
    sentencepiece::SentencePieceProcessor proc;
};

extern "C" struct spmc *spmc_load(const char *data, size_t len, char *why, size_t why_len) {
    try {
        spmc *m = new spmc;
        auto st = m->proc.LoadFromSerializedProto(std::string(data, len));
        if (!st.ok()) {
            std::snprintf(why, why_len, "%s", st.ToString().c_str());
            delete m;
            return nullptr;
        }
        return m;
    } catch (const std::exception &e) {
        std::snprintf(why, why_len, "%s", e.what());
    } catch (...) {
        std::snprintf(why, why_len, "the library failed");
    }
    return nullptr;
}

extern "C" void spmc_free(struct spmc *m) {
    delete m;
}

extern "C" long spmc_encode(const struct spmc *m, const char *text, size_t len, int *ids,
                            size_t cap) {
    try {
        std::vector<int> out;
        if (!m->proc.Encode(absl::string_view(text, len), &out).ok()) return -1;
        for (size_t i = 0; i < out.size() && i < cap; i++) ids[i] = out[i];
        return static_cast<long>(out.size());
    } catch (...) {
        return -1;
    }
}

extern "C" int spmc_size(const struct spmc *m) {
    return m->proc.GetPieceSize();
}

extern "C" const char *spmc_piece(const struct spmc *m, int id) {
    if (id < 0 || id >= m->proc.GetPieceSize()) return nullptr;
    if (m->proc.IsControl(id) || m->proc.IsUnknown(id) || m->proc.IsUnused(id) ||
        m->proc.IsByte(id))
        return nullptr;
    return m->proc.IdToPiece(id).c_str();
}
