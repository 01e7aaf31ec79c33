// SPDX-License-Identifier: MIT
#include "cli/cli_options.h"

#include "core/path_relation.h"

#include <algorithm>
#include <filesystem>

namespace stallscope::cli {

std::string formatOptions(const std::vector<OptionSpec>& specs)
{
    std::size_t width = 0;
    for (const auto& o : specs) {
        width = std::max(width, o.name.size() + (o.takesValue ? 2 : 0));
    }
    std::string s;
    for (const auto& o : specs) {
        std::string name = "  --" + o.name + (o.takesValue ? " V" : "");
        name.resize(width + 6, ' ');
        std::string help = o.help; // continuation lines align under the first
        for (std::size_t at = help.find('\n'); at != std::string::npos; at = help.find('\n', at + 1)) {
            help.insert(at + 1, std::string(width + 6, ' '));
        }
        s += name + help + '\n';
    }
    return s;
}

ParsedArgs parseArgs(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs)
{
    ParsedArgs out;
    bool optionsDone = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (optionsDone || a.size() < 2 || a[0] != '-') {
            out.positional.push_back(a);
            continue;
        }
        if (a == "--") {
            optionsDone = true;
            continue;
        }
        if (a == "-h" || a == "--help") {
            out.help = true;
            continue;
        }
        if (a.rfind("--", 0) != 0) {
            out.error = "unknown option " + a;
            return out;
        }
        std::string name = a.substr(2);
        std::string value;
        bool hasValue = false;
        if (auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            hasValue = true;
        }
        auto spec = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.name == name; });
        if (spec == specs.end()) {
            out.error = "unknown option --" + name;
            return out;
        }
        if (spec->takesValue && !hasValue) {
            if (i + 1 >= args.size()) {
                out.error = "option --" + name + " needs a value";
                return out;
            }
            value = args[++i];
        } else if (!spec->takesValue && hasValue) {
            out.error = "option --" + name + " takes no value";
            return out;
        }
        out.options[name].push_back(value);
    }
    return out;
}

std::string outsideInput(const std::string& input, const std::string& out, bool outMayHoldInput)
{
    const auto r = pathRelation(input, out);
    if (r == PathRelation::Same || r == PathRelation::Inside) {
        return "--out " + out + (r == PathRelation::Same ? " is " : " is inside ") + input
            + ", which this command reads: Stallscope never writes into what it opened (a folder would read what "
              "was written there as input the next time); choose a place outside it";
    }
    if (r == PathRelation::Holds && !outMayHoldInput) {
        return "--out " + out + " holds " + input
            + ", which this command reads: writing there replaces the folder and what it holds; choose a place "
              "outside it";
    }
    return {};
}

} // namespace stallscope::cli
