// Plain `Codable` mirrors of the generated RPC types the codec benchmarks decode and encode, for
// Foundation's JSONDecoder and JSONEncoder: generated while this target builds by the
// SDLGeneratorPlugin, from the spec and the templates (../../CodableTemplates) that sdlgen.json
// names. The spec's folder comes from SDL_RPC_SPEC_DIR (Benchmarks/spec-env.sh sets it).
