// SPDX-License-Identifier: MIT
// nvidia-smi's GPU path names (host_gpu.h).
#include "core/host_gpu.h"

#include "core/parse_number.h"

#include <algorithm>

namespace stallscope {

std::optional<GpuPathCell> parseGpuPathCell(std::string_view cell)
{
    if (cell == "X") {
        return GpuPathCell { GpuPathKind::Self, 0 };
    }
    if (cell.starts_with("NV") && cell.size() > 2) {
        const auto n = parseNumber<std::uint16_t>(cell.substr(2));
        if (!n || *n == 0) {
            return std::nullopt;
        }
        return GpuPathCell { GpuPathKind::NvLink, *n };
    }
    struct Name
    {
        std::string_view text;
        GpuPathKind kind;
    };
    static constexpr Name kNames[] = { { "PIX", GpuPathKind::Pix }, { "PXB", GpuPathKind::Pxb },
        { "PHB", GpuPathKind::Phb }, { "NODE", GpuPathKind::Node }, { "SYS", GpuPathKind::Sys },
        { "SOC", GpuPathKind::Sys } };
    for (const auto& n : kNames) {
        if (cell == n.text) {
            return GpuPathCell { n.kind, 0 };
        }
    }
    return std::nullopt;
}

std::string_view toString(GpuPathKind k)
{
    switch (k) {
    case GpuPathKind::Self:
        return "X";
    case GpuPathKind::NvLink:
        return "NV";
    case GpuPathKind::Pix:
        return "PIX";
    case GpuPathKind::Pxb:
        return "PXB";
    case GpuPathKind::Phb:
        return "PHB";
    case GpuPathKind::Node:
        return "NODE";
    case GpuPathKind::Sys:
        return "SYS";
    }
    return "SYS";
}

std::string gpuPathText(const GpuPathCell& c)
{
    return std::string(toString(c.kind)) + (c.kind == GpuPathKind::NvLink ? std::to_string(c.nvlinks) : "");
}

std::size_t GpuNvlinks::inactive() const
{
    return static_cast<std::size_t>(
        std::count_if(links.begin(), links.end(), [](const auto& l) { return l.second == 0.0; }));
}

std::map<std::pair<std::string, std::uint16_t>, NearestNic> nearestNics(const std::vector<GpuPath>& paths)
{
    std::map<std::pair<std::string, std::uint16_t>, NearestNic> out;
    for (const auto& p : paths) {
        if (p.peerIsGpu) {
            continue;
        }
        const auto [it, added] = out.try_emplace({ p.host, p.gpu }, NearestNic { p.peer, p.path, false });
        if (added) {
            continue;
        }
        auto& n = it->second;
        if (p.path.kind < n.path.kind) {
            n = { p.peer, p.path, false };
        } else if (p.path.kind == n.path.kind && p.peer != n.nic) {
            n.tied = true;
        }
    }
    return out;
}

} // namespace stallscope
