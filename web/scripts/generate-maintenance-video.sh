#!/usr/bin/env bash
# Generates web/public/maintenance-loop.webm, the background of the
# maintenance screen (docs/behaviour.md#maintenance-screen), from ffmpeg's own lavfi sources:
# no footage, fonts or downloads, so the output is reproducible from this file.
#
# How to run (from anywhere; needs ffmpeg built with libvpx, e.g. Debian's
# `apt-get install -y ffmpeg`):
#
#   bash web/scripts/generate-maintenance-video.sh            # writes web/public/maintenance-loop.webm
#   bash web/scripts/generate-maintenance-video.sh out.webm   # or another path
#
# It takes about a minute: geq evaluates the expressions below for every pixel.
#
# What it draws: a dark navy field with two slow, soft glows and faint
# streaks drifting left to right (a "stream" into the block). Every moving
# term is a function of 2*PI*T/DURATION with a whole-number multiplier, so the
# last frame leads straight back into the first and the loop has no seam.
# VP9, no audio track, about 6 s; the screen lays a dark overlay on top, so the
# picture is kept dim and low in detail, which also keeps the file small.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/../public/maintenance-loop.webm}"

duration=6     # seconds; the whole-number multipliers below make it loop
fps=24
size=640x360   # soft picture; the browser scales it to cover the viewport (object-fit: cover)

command -v ffmpeg >/dev/null || { echo "ffmpeg not found: apt-get install -y ffmpeg" >&2; exit 1; }

# Phase of the loop, 0..2*PI over the whole clip.
p="(2*PI*T/${duration})"
# Glow 1 circles the left half once per loop; glow 2 drifts on the right.
g1="exp(-(pow(X-W*(0.32+0.14*cos(${p})),2)+pow(Y-H*(0.42+0.18*sin(${p})),2))/(2*pow(0.26*W,2)))"
g2="exp(-(pow(X-W*(0.72+0.10*cos(${p}+2)),2)+pow(Y-H*(0.62+0.14*sin(2*${p})),2))/(2*pow(0.22*W,2)))"
# Streaks: wavy horizontal bands whose pattern travels one wavelength per loop.
s="(0.5+0.5*sin(2*PI*(3*X/W-T/${duration})+9*PI*Y/H+1.5*sin(2*PI*X/W+${p})))*(0.5+0.5*sin(2*PI*(11*Y/H)+2*sin(${p}+4*PI*X/W)))"

r="4+22*${g2}+5*${s}"
g="10+40*${g1}+16*${g2}+9*${s}"
b="22+70*${g1}+46*${g2}+16*${s}"

# One pass at constant quality (-b:v 0 -crf N); VP9 keeps smooth, dark
# gradients at a few hundred bytes a frame.
ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "color=c=black:s=${size}:r=${fps}:d=${duration}" \
  -vf "format=gbrp,geq=r='${r}':g='${g}':b='${b}',format=yuv420p" \
  -an -c:v libvpx-vp9 -b:v 0 -crf 40 -row-mt 1 -deadline good -cpu-used 2 \
  -metadata title="Slipstream maintenance background" "$out"

echo "wrote $out ($(wc -c <"$out") bytes)"
