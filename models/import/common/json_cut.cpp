// SPDX-License-Identifier: MIT
#include "import/common/json_cut.h"

namespace stallscope {

JsonArrayCut findJsonArrayCut(std::string_view text, std::string_view key)
{
    JsonArrayCut cut;
    std::size_t depth = 0; // 1 inside the top object, 2 inside one of its arrays or objects
    bool inArray = false;
    bool keyIsOurs = false; // the last string at depth 1 was `key` (and nothing but ':' since)
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            const auto start = i + 1;
            ++i;
            while (i < text.size() && text[i] != '"') {
                i += text[i] == '\\' ? 2 : 1; // an escape's next byte is never the string's end
            }
            if (i >= text.size()) {
                break; // the cut is inside this string
            }
            keyIsOurs = depth == 1 && text.substr(start, i - start) == key;
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth == 1 && c == '[' && keyIsOurs && !cut.found) {
                inArray = true;
                cut.found = true;
                cut.readableEnd = i + 1;
            }
            ++depth;
        } else if (c == '}' || c == ']') {
            if (depth == 0) {
                break; // more closed than opened: not a trace this scanner can help with
            }
            --depth;
            if (depth == 0) {
                cut.topClosed = true;
                break;
            }
            if (inArray && depth == 2) {
                ++cut.wholeRecords; // an event object (or any nested value) of the array ended here
                cut.readableEnd = i + 1;
            } else if (inArray && depth == 1) {
                inArray = false; // readableEnd stays at the last event: a walk over a prefix needs it to end in '}'
                cut.closed = true;
            }
        }
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != ':') {
            keyIsOurs = false; // a key is followed by its ':' and then its value, nothing else
        }
    }
    return cut;
}

} // namespace stallscope
