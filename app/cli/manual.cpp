// SPDX-License-Identifier: MIT
// Help text → roff. Pure C++ with no Qt, so the collector-only binary makes its own page with it.
#include "cli/manual.h"

#include <cstdio>
#include <sstream>

namespace stallscope::cli {

namespace {

bool startsWith(const std::string& s, const std::string& prefix)
{
    return s.rfind(prefix, 0) == 0;
}

std::string trim(const std::string& s)
{
    const auto a = s.find_first_not_of(' ');
    const auto b = s.find_last_not_of(' ');
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        out.push_back(line);
    }
    return out;
}

// Decodes one UTF-8 sequence at s[i] (advancing i); an invalid byte reads as U+FFFD.
unsigned codePoint(const std::string& s, std::size_t& i)
{
    const auto b = static_cast<unsigned char>(s[i++]);
    const int more = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : -1;
    if (more < 0) {
        return 0xFFFD;
    }
    unsigned cp = b & (0x3F >> more);
    for (int k = 0; k < more; ++k) {
        if (i >= s.size() || (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
            return 0xFFFD;
        }
        cp = (cp << 6) | (static_cast<unsigned char>(s[i++]) & 0x3F);
    }
    return cp;
}

// An option as the page shows it: --name, or --name V with the value in italics.
std::string optionTag(const HelpOption& o)
{
    return "\\fB" + roffText("--" + o.name) + "\\fR" + (o.takesValue ? " \\fIV\\fR" : "");
}

} // namespace

HelpText parseHelp(const std::string& text)
{
    HelpText h;
    enum { Usage, Description, Options, Rest } part = Usage;
    for (const auto& line : lines(text)) {
        if (part == Usage && startsWith(line, "Usage: ")) {
            h.usage.push_back(trim(line.substr(7)));
            continue;
        }
        if (part == Usage && startsWith(line, "       ") && !h.usage.empty()) {
            h.usage.push_back(trim(line));
            continue;
        }
        if (part == Usage) {
            part = Description;
        }
        if (part == Description && line == "Options:") {
            part = Options;
            continue;
        }
        if (part == Options) {
            if (startsWith(line, "  --")) {
                HelpOption o;
                const auto end = line.find(' ', 4);
                o.name = line.substr(4, end == std::string::npos ? std::string::npos : end - 4);
                o.takesValue = end != std::string::npos && line.compare(end, 3, " V ") == 0;
                const auto helpAt = end == std::string::npos
                    ? std::string::npos
                    : line.find_first_not_of(' ', end + (o.takesValue ? 2 : 0));
                o.help = helpAt == std::string::npos ? std::string() : line.substr(helpAt);
                h.options.push_back(o);
                continue;
            }
            if (startsWith(line, "      ") && !h.options.empty()) {
                h.options.back().help += "\n" + trim(line);
                continue;
            }
            part = Rest;
            if (line.empty()) {
                continue;
            }
        }
        (part == Description ? h.description : h.rest).push_back(line);
    }
    while (!h.description.empty() && h.description.back().empty()) {
        h.description.pop_back();
    }
    return h;
}

std::string roffText(const std::string& text)
{
    std::string out;
    bool lineStart = true;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (lineStart && (c == '.' || c == '\'')) {
            out += "\\&";
        }
        lineStart = c == '\n';
        if (static_cast<unsigned char>(c) >= 0x80) {
            char buf[16];
            std::snprintf(buf, sizeof buf, "\\[u%04X]", codePoint(text, i));
            out += buf;
            continue;
        }
        ++i;
        if (c == '\\') {
            out += "\\e";
        } else if (c == '-') {
            out += "\\-";
        } else {
            out += c;
        }
    }
    return out;
}

std::string roffUsage(const HelpText& help)
{
    std::string s = ".nf\n";
    for (const auto& u : help.usage) {
        s += roffText(u) + "\n";
    }
    return s + ".fi\n";
}

std::string roffDescription(const HelpText& help)
{
    std::string s;
    bool inPara = false;
    for (const auto& d : help.description) {
        if (d.empty()) {
            inPara = false;
            continue;
        }
        if (!inPara) {
            s += ".PP\n";
            inPara = true;
        }
        s += roffText(trim(d)) + "\n";
    }
    return s;
}

std::string roffOptions(const HelpText& help)
{
    std::string s;
    for (const auto& o : help.options) {
        s += ".TP\n" + optionTag(o) + "\n" + roffText(o.help) + "\n";
    }
    return s;
}

std::string roffRest(const HelpText& help)
{
    if (help.rest.empty()) {
        return {};
    }
    std::string s = ".PP\n.nf\n";
    for (const auto& r : help.rest) {
        s += roffText(r) + "\n";
    }
    return s + ".fi\n";
}

std::string roffCommand(const HelpText& help)
{
    return roffUsage(help) + roffDescription(help) + roffOptions(help) + roffRest(help);
}

std::string collectorManPage(const std::string& collectHelp, const std::string& version)
{
    auto help = parseHelp(collectHelp);
    for (auto& u : help.usage) {
        if (startsWith(u, "stallscope collect")) {
            u = "stallscope-collect" + u.substr(18);
        }
    }
    return ".TH STALLSCOPE\\-COLLECT 1 \"\" \"stallscope " + roffText(version) + "\" \"User Commands\"\n"
        + ".SH NAME\nstallscope\\-collect \\- sample InfiniBand port counters into CSV files\n" + ".SH SYNOPSIS\n"
        + roffUsage(help) + ".SH DESCRIPTION\n" + roffDescription(help)
        + ".PP\n"
          ".B stallscope\\-collect\n"
          "is the collector of Stallscope on its own, for hosts with no GUI stack; it takes the same options as\n"
          ".BR \"stallscope collect\" .\n"
          "The package runs it as the systemd service\n"
          ".BR stallscope\\-collect.service ,\n"
          "installed disabled; its options are set in\n"
          ".IR /etc/default/stallscope\\-collect .\n"
          ".SH OPTIONS\n"
        + roffOptions(help) + roffRest(help)
        + ".SH FILES\n.TP\n.I /etc/default/stallscope\\-collect\nthe service's options (STALLSCOPE_COLLECT_OPTS)\n"
          ".SH SEE ALSO\n.BR stallscope (1)\n";
}

} // namespace stallscope::cli
