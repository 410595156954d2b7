/* Preprocesses OpenCL C sources through the libamd_comgr.so.2 found on the library path
 * (under `hsaemu exec`: hsaemu's caching one) in four actions that differ from the one
 * before in one thing only (the -D option, the ISA, the source), and prints the lines of
 * each result that define `v` and `isa`. tests/it/comgr.rs runs it twice: the second run is
 * served from the cache, and both must show what the preprocessor makes of each input (a
 * key that left one of them out would repeat the previous action's result). */
#include <amd_comgr.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOOKUP(name)                                                      \
    typeof(&amd_comgr_##name) name = dlsym(lib, "amd_comgr_" #name);      \
    if (!name) {                                                          \
        fprintf(stderr, "no amd_comgr_" #name "\n");                      \
        return 1;                                                         \
    }

#define CHECK(call)                                                       \
    if ((call) != AMD_COMGR_STATUS_SUCCESS) {                             \
        fprintf(stderr, "%s failed\n", #call);                            \
        return 1;                                                         \
    }

int main(void) {
    void *lib = dlopen("libamd_comgr.so.2", RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    LOOKUP(create_data);
    LOOKUP(set_data);
    LOOKUP(set_data_name);
    LOOKUP(release_data);
    LOOKUP(create_data_set);
    LOOKUP(destroy_data_set);
    LOOKUP(data_set_add);
    LOOKUP(action_data_count);
    LOOKUP(action_data_get_data);
    LOOKUP(get_data);
    LOOKUP(create_action_info);
    LOOKUP(destroy_action_info);
    LOOKUP(action_info_set_isa_name);
    LOOKUP(action_info_set_language);
    LOOKUP(action_info_set_option_list);
    LOOKUP(do_action);

    static const char *const sources[] = {
        "int v = VALUE;\n#ifdef __gfx90a__\nint isa = 90;\n#else\nint isa = 0;\n#endif\n",
        "int v = VALUE + 1;\n#ifdef __gfx90a__\nint isa = 90;\n#else\nint isa = 0;\n#endif\n",
    };
    static const struct {
        const char *isa, *option;
        int source;
    } cases[] = {
        {"amdgcn-amd-amdhsa--gfx90a", "-DVALUE=1", 0},
        {"amdgcn-amd-amdhsa--gfx90a", "-DVALUE=2", 0},
        {"amdgcn-amd-amdhsa--gfx1030", "-DVALUE=2", 0},
        {"amdgcn-amd-amdhsa--gfx1030", "-DVALUE=2", 1},
    };
    for (int i = 0; i < 4; i++) {
        const char *source = sources[cases[i].source];
        amd_comgr_data_t src;
        amd_comgr_data_set_t in, out;
        amd_comgr_action_info_t info;
        CHECK(create_data(AMD_COMGR_DATA_KIND_SOURCE, &src));
        CHECK(set_data(src, strlen(source), source));
        CHECK(set_data_name(src, "value.cl"));
        CHECK(create_data_set(&in));
        CHECK(create_data_set(&out));
        CHECK(data_set_add(in, src));
        CHECK(create_action_info(&info));
        CHECK(action_info_set_isa_name(info, cases[i].isa));
        CHECK(action_info_set_language(info, AMD_COMGR_LANGUAGE_OPENCL_1_2));
        const char *options[] = {cases[i].option};
        CHECK(action_info_set_option_list(info, options, 1));
        CHECK(do_action(AMD_COMGR_ACTION_SOURCE_TO_PREPROCESSOR, info, in, out));
        size_t count = 0;
        CHECK(action_data_count(out, AMD_COMGR_DATA_KIND_SOURCE, &count));
        if (count != 1) {
            fprintf(stderr, "%zu preprocessed sources\n", count);
            return 1;
        }
        amd_comgr_data_t pre;
        CHECK(action_data_get_data(out, AMD_COMGR_DATA_KIND_SOURCE, 0, &pre));
        size_t size = 0;
        CHECK(get_data(pre, &size, NULL));
        char *text = calloc(size + 1, 1);
        if (!text)
            return 1;
        CHECK(get_data(pre, &size, text));
        printf("%s %s source %d:", cases[i].isa + strlen("amdgcn-amd-amdhsa--"),
               cases[i].option, cases[i].source);
        for (const char *line = text; line && *line;) {
            const char *end = strchr(line, '\n');
            int len = end ? (int)(end - line) : (int)strlen(line);
            if (strncmp(line, "int ", 4) == 0)
                printf(" %.*s", len, line);
            line = end ? end + 1 : NULL;
        }
        printf("\n");
        free(text);
        CHECK(release_data(pre));
        CHECK(release_data(src));
        CHECK(destroy_action_info(info));
        CHECK(destroy_data_set(in));
        CHECK(destroy_data_set(out));
    }
    return 0;
}
