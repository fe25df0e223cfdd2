#!/usr/bin/env bash
# Prints the replace block for go.mod: every k8s.io staging module of k8s.io/kubernetes VERSION
# pinned to its published v0.x twin. Usage: gen-replaces.sh v1.37.2
set -euo pipefail
v=${1:?usage: gen-replaces.sh v1.X.Y}
minor=${v#v1.}
curl -fsS "https://proxy.golang.org/k8s.io/kubernetes/@v/$v.mod" |
  awk -v pv="v0.$minor" '/=> \.\/staging/ { print "\t" $1 " => " $1 " " pv }'
