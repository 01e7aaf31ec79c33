// SPDX-License-Identifier: MIT
#pragma once

// Internal to the node-tools reader (node_tools.cpp): where the reading of one host's output stands, and the
// per-tool line readers (ibstat.cpp, ibstatus.cpp, ibv_devinfo.cpp, rdma_link.cpp). Lines reach them trimmed of
// prefixes and indentation: no reader relies on tabs or on how deep a line is indented.

#include "import/node_tools/node_tools.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::node_tools {

// One host's place in its output: the tool block and device being read, the port being filled.
struct Cursor
{
    std::string tool; // "ibstat", ...; "" outside any block
    std::string device;
    std::string fw;
    std::uint64_t nodeGuid = 0;
    std::optional<std::size_t> port; // index into NodeToolsFile::ports
    std::optional<std::size_t> sw; // ibswinfo: index into NodeToolsFile::switches
    std::string psu; // ibswinfo's table: the PSU whose indented lines follow ("PSU0"), "" outside one
    int swStage = 0; // ibswinfo's table header: 1 after its first "=====" (the name next), 2 after the name
    std::vector<std::string> topoColumns; // nvidia-smi topo -m: the header's devices ("GPU0", "NIC0", "mlx5_0")
    std::optional<std::size_t> gpu; // nvidia-smi nvlink: index into NodeToolsFile::nvlinks
};

// What the readers add to: the file's results and the host the current line is about.
struct Sink
{
    NodeToolsFile& out;
    const std::string& file;
    std::string host;
    std::map<std::string, std::map<std::string, std::string>> nicLegend; // host → "NIC0" → "mlx5_0" (topo -m)
    std::map<std::string, std::pair<std::int64_t, std::size_t>> devicesListed; // ibv_devices: host → header line, rows

    void sawTool(std::string_view tool);
    // Starts a port of the cursor's device (its device fields copied) and makes it the cursor's port.
    HostPort& openPort(Cursor& c, std::uint16_t port, std::int64_t line);
    HostPort* current(const Cursor& c) { return c.port ? &out.ports[*c.port] : nullptr; }
    // Opens a device block of `tool`: the cursor forgets the previous device.
    void openDevice(Cursor& c, std::string_view tool, std::string_view device);
};

// The words of a line split at spaces and tabs, at most `most` of them (the rest of the line is dropped).
std::vector<std::string_view> words(std::string_view line, std::size_t most);

// "0x0c42a10300aa0001" (ibstat), "0c42:a103:00aa:0001" (ibv_devinfo, sysfs): nullopt when not 16 hex digits.
std::optional<std::uint64_t> parseGuidText(std::string_view text);
// "13247" or "0x33bf" (ibstatus prints sysfs' hex): nullopt when not a LID (over 0xffff).
std::optional<std::uint32_t> parseLidText(std::string_view text);
// The text up to the first '(' or the end, trimmed: "PORT_ACTIVE (4)" stays whole for parsePortState, but
// "InfiniBand (0)" → "InfiniBand".
std::string_view beforeParen(std::string_view text);

// A lane's signalling rate by speed name, as ibstat's Rate counts it ("HDR" → 50); 0 when unknown.
double laneDataOf(std::string_view speed);

// Each returns true when the line is its tool's and was read.
bool ibstatHeader(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo);
bool ibstatField(std::string_view key, std::string_view value, Cursor& c, Sink& s, std::int64_t lineNo);
bool ibstatusHeader(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo);
bool ibstatusField(std::string_view key, std::string_view value, Cursor& c, Sink& s, std::int64_t lineNo);
bool devinfoHeader(std::string_view key, std::string_view value, Cursor& c, Sink& s, std::int64_t lineNo);
bool devinfoField(std::string_view key, std::string_view value, Cursor& c, Sink& s, std::int64_t lineNo);
bool rdmaLinkLine(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo);
// ibqueryerrors: "Errors for ..." opens a node, "GUID 0x... port N: [Name == value] ..." reports one port.
bool queryErrorsLine(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo);
// sminfo: "sminfo: sm lid 1 sm guid 0x…, activity count 512345 priority 14 state 3 SMINFO_MASTER", or its
// "sminfo: iberror: failed: query" when no subnet manager answered.
bool sminfoLine(std::string_view line, Sink& s, std::int64_t lineNo);
// smpquery portinfo: "# Port info: Lid 12 port 1" opens a port, then PortInfo's dotted fields
// ("LinkState:.......................Active").
bool smpqueryHeader(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo);
bool smpqueryField(std::string_view key, std::string_view value, Cursor& c, Sink& s, std::int64_t lineNo);
// ibswinfo: its default table ("=====" / name / "=====", then "key | value") or its "-o vitals" / "-o status"
// lists ("key : value"). Before the key/value split: the table's values hold ':' ("196d-07:05:40").
bool ibswinfoLine(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo);
// nvidia-smi topo -m: its header ("GPU0 GPU1 … NIC0 … CPU Affinity") opens the matrix, each GPU's row becomes
// GpuPaths, the legends are read as known; the NIC legend ("NIC0: mlx5_0") names the NIC columns afterwards
// (resolveNicLegend, once the whole file is read: the legend follows the matrix).
bool topoLine(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo);
void resolveNicLegend(Sink& s);
// nvidia-smi nvlink --status / -e: "GPU 0: <model> (UUID: GPU-…)" opens a GPU, "Link 3: 26.562 GB/s",
// "Link 3: <inactive>", "Link 3: CRC Errors: 12" fill it.
bool nvlinkLine(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo);
// ibv_devices: its "device  node GUID" header, the dashes under it, a row per device ("mlx5_0  b83fd2…"): each a
// device of the host with its GUID, its ports not listed. A header with no row under it (noDevicesListed, once the
// file is read) is every RDMA device gone: the driver not loaded, or the HCAs off the bus.
bool devicesLine(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo);
void noDevicesListed(Sink& s);
// A topo -m header with its GPU0 row, or an nvlink GPU header with its first link.
bool looksLikeNvidiaSmi(std::string_view text);
// The header alone (for the recogniser): "link mlx5_0/1 " or "1/1: mlx5_0/1: " followed by a state.
bool isRdmaLinkLine(std::string_view line);

} // namespace stallscope::node_tools
