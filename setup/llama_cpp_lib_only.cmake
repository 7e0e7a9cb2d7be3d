# Passed to llama-cpp-python's build as -DCMAKE_PROJECT_llama.cpp_INCLUDE=<this file> (the Makefile does): CMake runs
# it at the `project()` call of the vendored llama.cpp, before llama.cpp declares its options. llama-cpp-python forces
# LLAMA_BUILD_COMMON=ON, which compiles libllama-common (the CLI tools' argument parser, chat templates, HTTP client,
# JSON); its Python bindings load only libllama and libggml*, so the project does not build it.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama: build common utils library" FORCE)
