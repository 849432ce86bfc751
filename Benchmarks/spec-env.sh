# Sourced by the scripts that build this package: the build plugin generates the Codable mirrors
# from the specs these variables name (CodableMirrors/sdlgen.json, HMICodableMirrors/sdlgen.json),
# by default the ones beside the clone, as for the tests.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export SDL_RPC_SPEC_DIR=${SDL_RPC_SPEC_DIR:-$(cd "$here/../shared/rpc_spec" 2>/dev/null && pwd || echo "$here/.sdl-data/rpc_spec")}
export SDL_HMI_SPEC_DIR=${SDL_HMI_SPEC_DIR:-$(cd "$here/../shared/sdl_core_8.2.0" 2>/dev/null && pwd || echo "$here/.sdl-data/sdl_core_8.2.0")}
