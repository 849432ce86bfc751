// Plain `Codable` mirrors of the generated HMI API types the HMI codec benchmarks decode and
// encode: generated while this target builds by the SDLGeneratorPlugin, from the spec and the
// templates (../../CodableTemplates) that sdlgen.json names. The spec's folder comes from
// SDL_HMI_SPEC_DIR (Benchmarks/spec-env.sh sets it).
