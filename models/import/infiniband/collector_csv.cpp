// SPDX-License-Identifier: MIT
#include "import/infiniband/collector_csv.h"
#include "core/parse_number.h"

#include "import/common/text_lines.h"

#include <set>
#include <sstream>

namespace stallscope {

bool looksLikeCollectorCsv(const std::string& text)
{
    return text.rfind(kCollectorCsvHeader, 0) == 0;
}

namespace {

std::vector<std::string> splitCsv(const std::string& line)
{
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) {
        out.push_back(cell);
    }
    if (!line.empty() && line.back() == ',') {
        out.emplace_back();
    }
    return out;
}

} // namespace

void readCollectorCsv(const std::string& file, const std::string& text, const GuidOfHca& guidOfHca, CounterSink& sink,
    std::vector<LoadIssue>& warnings)
{
    TextLines reader(text);
    std::string line;
    reader.next(line);
    const auto header = splitCsv(line);
    if (header.size() < 4) { // t_ns, host, device, port: what every row needs before its counters
        warnings.push_back({ file, 1, -1, "expected the header \"t_ns,host,device,port,...\": file skipped" });
        return;
    }
    std::set<std::string> unknownHcas;
    BackwardsCheck backwards(file);
    while (reader.next(line)) {
        const std::int64_t lineNo = reader.number();
        const auto cells = splitCsv(line);
        if (cells.size() != header.size()) {
            warnings.push_back({ file, lineNo, -1,
                "expected " + std::to_string(header.size()) + " columns, got " + std::to_string(cells.size())
                    + ": row skipped" });
            continue;
        }
        const auto t = parseNumber<TimeNs>(cells[0]);
        const auto port = parseNumber<std::uint16_t>(cells[3]);
        if (!t || !port) {
            warnings.push_back({ file, lineNo, -1,
                !t ? "expected a time in ns in the first column: row skipped"
                   : "expected a port number in the fourth column: row skipped" });
            continue;
        }
        const auto desc = cells[1] + " " + cells[2];
        const auto guid = guidOfHca(desc);
        if (!guid) {
            if (unknownHcas.insert(desc).second) {
                warnings.push_back(
                    { file, lineNo, -1, "no topology node named \"" + desc + "\": its counters are skipped" });
            }
            continue;
        }
        for (std::size_t c = 5; c < header.size(); ++c) {
            const auto kind = parseCounterKind(header[c]);
            if (cells[c].empty() || !kind) {
                continue;
            }
            if (const auto value = parseNumber<std::uint64_t>(cells[c])) {
                backwards.see(desc + " port " + cells[3] + " " + header[c], *t, *value, lineNo, warnings);
                sink.sample(*guid, *port, *kind, *t, *value);
            } else {
                warnings.push_back({ file, lineNo, -1,
                    "column \"" + header[c] + "\": expected a counter value, got \"" + cells[c]
                        + "\": sample skipped" });
            }
        }
    }
    if (auto cut = reader.cutWarning(file)) {
        warnings.push_back(*cut);
    }
}

} // namespace stallscope
