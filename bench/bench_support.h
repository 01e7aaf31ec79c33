// SPDX-License-Identifier: MIT
#pragma once

// Shared by the benchmark programs: the bundle a benchmark runs on — the folder named by an environment variable,
// else a preset generated once into $TMPDIR/<name> and reused by later runs.

#include "bundle/writer.h"
#include "sim/config.h"
#include "sim/simulator.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

namespace stallscope::bench {

inline std::string bundleFor(const char* envVar, const char* preset, const char* name)
{
    if (const char* env = std::getenv(envVar)) {
        return env;
    }
    const auto dir = (std::filesystem::temp_directory_path() / name).string();
    if (!std::filesystem::exists(std::filesystem::path(dir) / "manifest.json")) {
        std::cerr << "generating " << preset << " into " << dir << " ...\n";
        NullProgress none;
        auto sim = simulate(*presetConfig(preset), none);
        if (!sim || !writeBundle(*sim->snapshot, dir).empty()) {
            std::cerr << "cannot generate the bench bundle\n";
            std::exit(1);
        }
    }
    return dir;
}

// One frame of a zoom benchmark: `w` shrinks by `factor` around `focus` until `minWidth`, then pans a tenth.
inline void zoomStep(TimeRange& w, TimeNs focus, double factor, TimeNs minWidth)
{
    if (w.delta() > minWidth) {
        const TimeNs width = std::max<TimeNs>(minWidth, TimeNs(double(w.delta()) * factor));
        const double frac = double(focus - w.start) / double(w.delta());
        w.start = focus - TimeNs(frac * double(width));
        w.end = w.start + width;
    } else {
        w.start += w.delta() / 10;
        w.end += w.delta() / 10;
    }
}

} // namespace stallscope::bench
