// SPDX-License-Identifier: MIT
// dcgm-exporter scrapes (dcgm.h): each sample line parsed by the exposition line reader, then sorted by its field.
#include "import/prometheus/dcgm.h"

#include "import/prometheus/exposition_line.h"

#include <algorithm>
#include <map>

namespace stallscope {

namespace {

// DCGM's blank values: DCGM_INT64_BLANK (0x7ffffffffffffff0) and the sentinels above it, printed as integers.
constexpr double kBlank = 9.2233720368547e18;

// "00000000:41:00.0" → "0000:41:00.0", as the kernel prints a PCI address.
std::string kernelPci(std::string pci)
{
    const auto colon = pci.find(':');
    if (colon != std::string::npos && colon > 4) {
        pci.erase(0, colon - 4);
    }
    std::transform(pci.begin(), pci.end(), pci.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return pci.substr(0, 32);
}

// An NVLink field that counts trouble: "…_ERROR_COUNT_TOTAL" (CRC flit, CRC data, replay, recovery), GB200's
// "NVLINK_COUNT_…_ERRORS", "…_RECOVERY_…_EVENTS", "…_DISCARDS". Bandwidth and packet counts are not.
bool nvlinkErrorField(std::string_view name)
{
    constexpr std::string_view kPrefix = "DCGM_FI_DEV_NVLINK_";
    if (!name.starts_with(kPrefix)) {
        return false;
    }
    return name.find("ERROR") != std::string_view::npos || name.find("RECOVERY") != std::string_view::npos
        || name.find("DISCARD") != std::string_view::npos;
}

struct Reader
{
    const std::string& file;
    const std::string& fileHost;
    DcgmScrape out;
    std::map<std::pair<std::string, std::uint16_t>, std::size_t> nvlinkOf; // (host, GPU) → out.nvlinks index
    static constexpr std::size_t kMaxGpus = 1 << 16;

    void sample(const exposition::Line& l, std::int64_t lineNo)
    {
        const auto* gpuLabel = exposition::findLabel(l, "gpu");
        const auto gpu = gpuLabel ? parseGpu(*gpuLabel) : std::nullopt;
        if (!gpu) {
            return;
        }
        auto host = exposition::label(l, "Hostname");
        if (host.empty()) {
            host = fileHost;
        }
        host = host.substr(0, 128);
        if (!host.empty() && std::find(out.hosts.begin(), out.hosts.end(), host) == out.hosts.end()
            && out.hosts.size() < 4096) {
            out.hosts.push_back(host);
        }
        ++out.samples;
        auto& g = gpuOf(l, host, *gpu, lineNo);
        if (!(l.value >= 0 && l.value < kBlank)) { // also NaN: no integer to take
            return;
        }
        const auto value = static_cast<std::uint64_t>(l.value);
        if (l.name == "DCGM_FI_DEV_XID_ERRORS" && value > 0 && out.xids.size() < 1 << 16) {
            // The evidence names the series by what identifies it: the whole line holds a dozen labels.
            const auto pci = exposition::label(l, "pci_bus_id");
            out.xids.push_back({ host, *gpu, kernelPci(pci), static_cast<std::int64_t>(value), lineNo,
                l.name + "{gpu=\"" + *gpuLabel + "\"" + (host.empty() ? "" : ",Hostname=\"" + host + "\"")
                    + (pci.empty() ? "" : ",pci_bus_id=\"" + pci.substr(0, 32) + "\"") + ",…} "
                    + std::to_string(value) });
        } else if (nvlinkErrorField(l.name)) {
            nvlinkError(l, g, value);
        }
    }

    // The GPU's entry, made at its first sample: every GPU the scrape names is one of its host's GPUs.
    GpuNvlinks& gpuOf(const exposition::Line& l, const std::string& host, std::uint16_t gpu, std::int64_t lineNo)
    {
        const auto [it, added] = nvlinkOf.try_emplace({ host, gpu }, out.nvlinks.size());
        if (added && out.nvlinks.size() < kMaxGpus) {
            GpuNvlinks g;
            g.host = host;
            g.gpu = gpu;
            g.model = exposition::label(l, "modelName").substr(0, 80);
            g.uuid = exposition::label(l, "UUID").substr(0, 80);
            g.file = file;
            g.line = lineNo;
            out.nvlinks.push_back(std::move(g));
            out.gpus = out.nvlinks.size();
        } else if (added) {
            it->second = out.nvlinks.size() - 1; // past the bound: counted into the last GPU kept, never allocated
        }
        return out.nvlinks[it->second];
    }

    static std::optional<std::uint16_t> parseGpu(const std::string& text)
    {
        std::uint32_t v = 0;
        if (text.empty() || text.size() > 5) {
            return std::nullopt;
        }
        for (const char c : text) {
            if (c < '0' || c > '9') {
                return std::nullopt;
            }
            v = v * 10 + static_cast<std::uint32_t>(c - '0');
        }
        return v <= 0xffff ? std::optional(static_cast<std::uint16_t>(v)) : std::nullopt;
    }

    void nvlinkError(const exposition::Line& l, GpuNvlinks& g, std::uint64_t value)
    {
        ++g.counterReadings;
        if (value == 0 || g.errors.size() >= 256) {
            return;
        }
        const auto* link = exposition::findLabel(l, "link");
        const auto index = link ? parseGpu(*link) : std::nullopt;
        g.errors.push_back({ index.value_or(GpuNvlinks::kAllLinks),
            std::string(std::string_view(l.name).substr(std::string_view("DCGM_FI_DEV_NVLINK_").size(), 60)), value });
    }
};

} // namespace

bool looksLikeDcgmScrape(const std::string& text)
{
    const std::string_view head = std::string_view(text).substr(0, 65536);
    if (head.find("# TYPE DCGM_FI_") != std::string_view::npos) {
        return true;
    }
    for (auto at = head.find("DCGM_FI_"); at != std::string_view::npos; at = head.find("DCGM_FI_", at + 8)) {
        const auto end = head.find('\n', at);
        const auto line = head.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
        exposition::Line l;
        if (exposition::parseLine(line, l) && exposition::findLabel(l, "gpu")) {
            return true;
        }
    }
    return false;
}

Result<DcgmScrape> parseDcgmScrape(const std::string& file, const std::string& text, const std::string& fileHost)
{
    Reader r { file, fileHost, {}, {} };
    exposition::Line l;
    std::size_t pos = 0;
    std::int64_t lineNo = 0;
    while (pos < text.size()) {
        const auto line = exposition::nextLine(text, pos);
        ++lineNo;
        // A sample behind a paste's wrapper ("> ", a prompt's output in a fence): read from its field's name.
        const auto at = line.find("DCGM_FI_");
        if (at == std::string_view::npos || line.starts_with("#")) {
            continue;
        }
        const auto sample = line.substr(at);
        if (exposition::parseLine(sample, l)) {
            r.sample(l, lineNo);
        }
    }
    if (r.out.samples == 0) {
        return LoadIssue { file, 0, -1,
            "no DCGM sample line read: expected dcgm-exporter's DCGM_FI_* series with a gpu label" };
    }
    return std::move(r.out);
}

} // namespace stallscope
