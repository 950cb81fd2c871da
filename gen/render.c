/* KernelSpec -> CUDA source through the Lua templates (gen/render.h,
 * docs/templates.md).
 *
 * Each render gets a fresh Lua state with only the pure libraries (base
 * without dofile/loadfile, string, table, math).  The engine
 * (templates/engine.lua) compiles templates to Lua and runs them in a
 * sandboxed environment; the only way a template reaches a file is
 * include(), which goes through read_template below and can name nothing but
 * a template of the template set. */
#include "render.h"

#include "kernel_param.h"
#include "layer_record.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "c_locale.h"
#include "fs.h"
#include "hash.h"
#include "tmcml_config.h"

#define RENDER_KERNEL_NAME   "tmcml_kernel"
#define RENDER_ENGINE        "engine.lua"
#define RENDER_MAIN_TEMPLATE "kernel.cu"
#define TEMPLATE_PREFIX      "template "

/* ---- hashing ------------------------------------------------------------------ */

/* Name and contents, each followed by a NUL so that ("ab","c") and ("a","bc")
 * hash differently. */
static uint64_t fnv1a_file(uint64_t h, const char *name, const char *text, size_t size)
{
    h = hash_fnv1a(h, name, strlen(name) + 1);
    h = hash_fnv1a(h, text, size);
    return hash_fnv1a(h, "", 1);
}

uint64_t render_generator_hash(void)
{
    uint64_t h = HASH_FNV1A_START;
    for (size_t i = 0; i < render_embedded_count; i++) {
        const render_file *f = &render_embedded_files[i];
        h = fnv1a_file(h, f->name, f->text, f->size);
    }
    return kernel_param_hash(h); /* the signature's rows: source the templates do not hold */
}

/* ---- the template set: embedded, or a directory ------------------------------ */

const render_file *render_embedded(const char *name)
{
    for (size_t i = 0; i < render_embedded_count; i++)
        if (strcmp(render_embedded_files[i].name, name) == 0)
            return &render_embedded_files[i];
    return NULL;
}

/* Where one render reads its files, and the hash of what it read from a
 * directory (the embedded set has render_generator_hash). */
typedef struct template_set {
    const char *dir;   /* NULL: embedded */
    uint64_t dir_hash; /* FNV-1a over the files read from dir, in reading order */
} template_set;

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Names a template may include: a plain file name of the set, so that no
 * path ("../x", "/etc/passwd") reaches the file system. */
static bool valid_template_name(const char *name)
{
    if (!name[0] || name[0] == '.' || !has_suffix(name, ".cu"))
        return false;
    return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") ==
           strlen(name);
}

static void dir_path(const template_set *set, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", set->dir, name);
}

/* A file of the set as a NUL-terminated text; *owned is what the caller
 * frees (NULL for embedded text). */
static bool set_read(template_set *set, const char *name, const char **text, size_t *size,
                     char **owned, tm_error *err)
{
    *owned = NULL;
    if (!set->dir) {
        const render_file *f = render_embedded(name);
        if (!f) {
            error_set(err, NULL, 0, "%s is not embedded in this build", name);
            return false;
        }
        *text = f->text;
        *size = f->size;
        return true;
    }
    char path[4096];
    dir_path(set, name, path, sizeof path);
    if (!fs_file_size(path, size, err))
        return false;
    char *buf = malloc(*size + 1);
    if (!buf) {
        error_set(err, path, 0, "out of memory");
        return false;
    }
    if (!fs_read_exact(path, buf, *size, err)) {
        free(buf);
        return false;
    }
    buf[*size] = '\0';
    set->dir_hash = fnv1a_file(set->dir_hash, name, buf, *size);
    *text = *owned = buf;
    return true;
}

/* Lua: loader(name) -> text | nil, why.  The engine's only way to files. */
static int lua_read_template(lua_State *L)
{
    template_set *set = lua_touserdata(L, lua_upvalueindex(1));
    const char *name = luaL_checkstring(L, 1);
    if (!valid_template_name(name)) {
        lua_pushnil(L);
        lua_pushstring(L, "template names are plain file names ending in .cu");
        return 2;
    }
    if (!set->dir) {
        const render_file *f = render_embedded(name);
        if (!f) {
            lua_pushnil(L);
            lua_pushstring(L, "no such template in this build");
            return 2;
        }
        lua_pushlstring(L, f->text, f->size);
        return 1;
    }
    /* Read straight into a Lua buffer: no C allocation for a Lua error to
     * leak. */
    char path[4096];
    tm_error err;
    size_t size;
    dir_path(set, name, path, sizeof path);
    if (!fs_file_size(path, &size, &err)) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, err.message);
        return 2;
    }
    luaL_Buffer b;
    char *buf = luaL_buffinitsize(L, &b, size + 1);
    if (!fs_read_exact(path, buf, size, &err)) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, err.message);
        return 2;
    }
    set->dir_hash = fnv1a_file(set->dir_hash, name, buf, size);
    luaL_pushresultsize(&b, size);
    return 1;
}

/* ---- the Lua state ------------------------------------------------------------ */

/* Base (without the functions that read files), string, table, math. */
static void open_safe_libs(lua_State *L)
{
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},
        {LUA_STRLIBNAME, luaopen_string},
        {LUA_TABLIBNAME, luaopen_table},
        {LUA_MATHLIBNAME, luaopen_math},
    };
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
        luaL_requiref(L, libs[i].name, libs[i].func, 1);
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
}

/* Message handler: errors the engine raises without a position, and errors
 * of C functions called from a template ("bad argument #1 to 'format'"), get
 * the innermost template line on the stack, so every error names one. */
static int lua_locate_error(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    if (strncmp(msg, TEMPLATE_PREFIX, strlen(TEMPLATE_PREFIX)) == 0)
        return 1;
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar))
            break;
        if (strncmp(ar.source, "=" TEMPLATE_PREFIX, strlen("=" TEMPLATE_PREFIX)) == 0 &&
            ar.currentline > 0) {
            lua_pushfstring(L, "%s:%d: %s", ar.source + 1, ar.currentline, msg);
            return 1;
        }
    }
    lua_pushstring(L, msg);
    return 1;
}

/* "template NAME:LINE: what" -> err->file "template NAME", err->line LINE. */
static void error_from_lua(const char *msg, tm_error *err)
{
    if (strncmp(msg, TEMPLATE_PREFIX, strlen(TEMPLATE_PREFIX)) == 0) {
        const char *colon = strchr(msg, ':');
        char *end;
        long line = colon ? strtol(colon + 1, &end, 10) : 0;
        if (colon && line > 0 && end[0] == ':' && end[1] == ' ') {
            char file[256];
            snprintf(file, sizeof file, "%.*s", (int)(colon - msg), msg);
            error_set(err, file, (int)line, "%s", end + 2);
            return;
        }
    }
    error_set(err, NULL, 0, "%s", msg);
}

static void set_int(lua_State *L, const char *field, lua_Integer value)
{
    lua_pushinteger(L, value);
    lua_setfield(L, -2, field);
}

static void set_number(lua_State *L, const char *field, double value)
{
    lua_pushnumber(L, value);
    lua_setfield(L, -2, field);
}

static void set_string(lua_State *L, const char *field, const char *value)
{
    lua_pushstring(L, value);
    lua_setfield(L, -2, field);
}

static void set_bool(lua_State *L, const char *field, bool value)
{
    lua_pushboolean(L, value);
    lua_setfield(L, -2, field);
}

/* spec.layers[i].record: the kernel's layer record as the host derives it,
 * so that baked-in values are the very floats an uploaded table holds. */
static void push_record(lua_State *L, const layer_record *r)
{
    float v[LAYER_RECORD_FIELDS];
    layer_record_values(r, v);
    lua_createtable(L, 0, LAYER_RECORD_FIELDS);
    for (int f = 0; f < LAYER_RECORD_FIELDS; f++)
        set_number(L, layer_record_field_names[f], (double)v[f]);
    lua_setfield(L, -2, "record");
}

/* spec.layers[0 .. num_layers + 1]: the media above and below included. */
static void push_layers(lua_State *L, const kernel_spec *spec)
{
    int count = spec->num_layers + 2;
    if (count > SPEC_MAX_LAYERS + 2)
        count = SPEC_MAX_LAYERS + 2;
    layer_record records[SPEC_MAX_LAYERS + 2];
    layer_records_fill(spec->layers, count, records);
    lua_createtable(L, count, 1);
    for (int i = 0; i < count; i++) {
        const spec_layer *l = &spec->layers[i];
        lua_createtable(L, 0, 9);
        set_number(L, "n", l->n);
        set_number(L, "mua", l->mua);
        set_number(L, "mus", l->mus);
        set_number(L, "g", l->g);
        set_number(L, "z0", l->z0);
        set_number(L, "z1", l->z1);
        set_number(L, "cos_crit0", l->cos_crit0);
        set_number(L, "cos_crit1", l->cos_crit1);
        push_record(L, &records[i]);
        lua_rawseti(L, -2, i);
    }
}

/* Every knob of the table as spec.NAME (a tile as NAME_nr, NAME_nz; a
 * choice as its name; a switch as a boolean), but the launch's: a kernel's
 * source never depends on them. */
static void push_knobs(lua_State *L, const kernel_knobs *v)
{
    for (int i = 0; i < knob_count; i++) {
        const knob *k = &knob_table[i];
        for (int f = 0; !k->launch_only && f < knob_field_count(k); f++) {
            char name[64], value[64];
            knob_field_name(k, f, name, sizeof name);
            if (k->kind == KNOB_SWITCH) {
                set_bool(L, name, knob_field_get(k, v, f) != 0);
            } else if (k->kind == KNOB_CHOICE) {
                knob_format(k, v, value, sizeof value);
                lua_pushstring(L, value);
                lua_setfield(L, -2, name);
            } else {
                set_int(L, name, knob_field_get(k, v, f));
            }
        }
    }
}

/* spec.params: the rows of kernel_param_table[] that spec's kernel takes,
 * in order, each its type, name and new_line (templates/kernel.cu writes
 * the signature from them; the GPU engine passes the same rows' values). */
static void push_params(lua_State *L, const kernel_spec *spec)
{
    lua_createtable(L, KERNEL_PARAM_ROWS, 0);
    lua_Integer n = 0;
    for (int i = 0; i < KERNEL_PARAM_ROWS; i++) {
        const kernel_param *p = &kernel_param_table[i];
        if (!kernel_param_taken(p, spec))
            continue;
        lua_createtable(L, 0, 3);
        lua_pushstring(L, p->type);
        lua_setfield(L, -2, "type");
        lua_pushstring(L, p->name);
        lua_setfield(L, -2, "name");
        set_bool(L, "new_line", p->new_line);
        lua_rawseti(L, -2, ++n);
    }
    lua_setfield(L, -2, "params");
}

/* The KernelSpec as the table `spec` of the templates. */
static void push_spec(lua_State *L, const kernel_spec *spec)
{
    lua_createtable(L, 0, 20);
    for (int i = 0; i < shape_field_count; i++) {
        const shape_field *f = &shape_field_table[i];
        int v = shape_field_get(f, &spec->shape);
        if (f->kind == SHAPE_BOOL)
            set_bool(L, f->name, v != 0);
        else
            set_int(L, f->name, v);
    }
    /* the source kind by its name as well as its number (shape.h) */
    int source = spec->shape.source;
    if (source >= 0 && source < SHAPE_SOURCE_KINDS)
        set_string(L, "source_name", shape_source_names[source]);
    set_number(L, "dr", spec->dr);
    set_number(L, "dz", spec->dz);
    set_number(L, "da", spec->da);
    set_bool(L, "batch", spec->batch);
    push_knobs(L, &spec->knobs);
    if (spec->knobs.layer_placement == SPEC_LAYERS_IMMEDIATE) {
        push_layers(L, spec);
        lua_setfield(L, -2, "layers");
    }
    set_int(L, "arch", spec->arch);
    set_bool(L, "debug_out_of_bounds", spec->debug_out_of_bounds);
    set_bool(L, "count_deposits", spec->count_deposits);
    set_bool(L, "debug_bias", spec->debug_bias);
    set_int(L, "shared_bytes", (lua_Integer)spec_shared_bytes(spec));
    set_int(L, "sets_g_pairs_at", (lua_Integer)spec_sets_g_pairs_at(spec));
    push_params(L, spec);
}

/* Loads engine.lua; leaves its module table on the stack. */
static bool load_engine(lua_State *L, template_set *set, tm_error *err)
{
    const char *text;
    size_t size;
    char *owned;
    if (!set_read(set, RENDER_ENGINE, &text, &size, &owned, err))
        return false;
    int status = luaL_loadbufferx(L, text, size, "=" RENDER_ENGINE, "t");
    free(owned);
    if (status == LUA_OK)
        status = lua_pcall(L, 0, 1, 0);
    if (status != LUA_OK || !lua_istable(L, -1)) {
        error_set(err, NULL, 0, "%s",
                  status != LUA_OK ? lua_tostring(L, -1)
                                   : RENDER_ENGINE ": did not return a table");
        return false;
    }
    return true;
}

/* engine.render(loader, "kernel.cu", spec, key, {layers = true}) -> text,
 * copied into *body (malloc'd). */
static bool run_engine(lua_State *L, template_set *set, const kernel_spec *spec, const char *key,
                       char **body, size_t *body_len, tm_error *err)
{
    lua_pushcfunction(L, lua_locate_error);
    int handler = lua_gettop(L);
    if (!load_engine(L, set, err))
        return false;
    lua_getfield(L, -1, "render");
    lua_pushlightuserdata(L, set);
    lua_pushcclosure(L, lua_read_template, 1);
    lua_pushstring(L, RENDER_MAIN_TEMPLATE);
    push_spec(L, spec);
    lua_pushstring(L, key);
    lua_createtable(L, 0, 1);
    set_bool(L, "layers", true);
    if (lua_pcall(L, 5, 1, handler) != LUA_OK) {
        error_from_lua(lua_tostring(L, -1), err);
        return false;
    }
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    if (!text) {
        error_set(err, NULL, 0, "%s: render returned no text", RENDER_ENGINE);
        return false;
    }
    if (!(*body = malloc(len + 1))) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    memcpy(*body, text, len + 1);
    *body_len = len;
    return true;
}

/* ---- the output ---------------------------------------------------------------- */

/* What render_output.storage points to: the header table and the texts read
 * from a template directory. */
typedef struct header_storage {
    size_t count;
    render_header *headers;
    char **owned; /* count entries, NULL where the text is embedded */
} header_storage;

static void header_storage_free(header_storage *hs)
{
    if (!hs)
        return;
    for (size_t i = 0; i < hs->count; i++)
        free(hs->owned[i]);
    free(hs->owned);
    free(hs->headers);
    free(hs);
}

/* The headers are the embedded files named *.h; with a template directory,
 * files of the same names from there. */
static header_storage *read_headers(template_set *set, tm_error *err)
{
    header_storage *hs = calloc(1, sizeof *hs);
    if (!hs || !(hs->headers = calloc(render_embedded_count, sizeof *hs->headers)) ||
        !(hs->owned = calloc(render_embedded_count, sizeof *hs->owned))) {
        header_storage_free(hs);
        error_set(err, NULL, 0, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < render_embedded_count; i++) {
        const char *name = render_embedded_files[i].name;
        if (!has_suffix(name, ".h"))
            continue;
        size_t size;
        render_header *h = &hs->headers[hs->count];
        h->name = name;
        if (!set_read(set, name, &h->text, &size, &hs->owned[hs->count], err)) {
            header_storage_free(hs);
            return NULL;
        }
        hs->count++;
    }
    return hs;
}

/* The comment every generated source starts with, so a reader of `tmcml
 * gen` output knows what produced it.  The key cannot contain a comment
 * terminator: spec_key writes only numbers, names and "=x[];,". */
static char *source_banner(const char *key, const template_set *set)
{
    char generator[128];
    if (set->dir)
        snprintf(generator, sizeof generator,
                 "templates from a --templates directory, files hash %016" PRIx64, set->dir_hash);
    else
        snprintf(generator, sizeof generator, "%016" PRIx64 " (embedded templates)",
                 render_generator_hash());
    const char *fmt = "/* Generated by tmcml %s from its Lua templates (templates/kernel.cu):\n"
                      " * edit the templates, not this file.\n"
                      " *   spec:      %s\n"
                      " *   generator: %s\n"
                      " */\n";
    int n = snprintf(NULL, 0, fmt, TMCML_VERSION, key, generator);
    char *banner = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (banner)
        snprintf(banner, (size_t)n + 1, fmt, TMCML_VERSION, key, generator);
    return banner;
}

static char *concat2(const char *a, const char *b, size_t b_len)
{
    size_t a_len = strlen(a);
    char *s = malloc(a_len + b_len + 1);
    if (s) {
        memcpy(s, a, a_len);
        memcpy(s + a_len, b, b_len + 1);
    }
    return s;
}

/* banner + body -> out->source; the kernel's name -> out->kernel_name. */
static bool assemble(const char *key, const template_set *set, const char *body, size_t body_len,
                     render_output *out, tm_error *err)
{
    if (!strstr(body, RENDER_KERNEL_NAME)) {
        error_set(err, TEMPLATE_PREFIX RENDER_MAIN_TEMPLATE, 0,
                  "the rendered source defines no %s (the entry point every kernel must have)",
                  RENDER_KERNEL_NAME);
        return false;
    }
    char *banner = source_banner(key, set);
    out->source = banner ? concat2(banner, body, body_len) : NULL;
    free(banner);
    out->kernel_name = strdup(RENDER_KERNEL_NAME);
    if (!out->source || !out->kernel_name) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    return true;
}

static bool render_in_state(lua_State *L, const kernel_spec *spec, template_set *set,
                            render_output *out, tm_error *err)
{
    char *key = spec_key(spec);
    if (!key) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    char *body = NULL;
    size_t body_len = 0;
    header_storage *hs = NULL;
    bool ok = run_engine(L, set, spec, key, &body, &body_len, err) &&
              (hs = read_headers(set, err)) != NULL && assemble(key, set, body, body_len, out, err);
    free(body);
    free(key);
    if (hs) {
        out->storage = hs;
        out->headers = hs->headers;
        out->num_headers = hs->count;
    }
    return ok;
}

bool render_kernel(const kernel_spec *spec, const char *template_dir, render_output *out,
                   tm_error *err)
{
    memset(out, 0, sizeof *out);
    if (!spec_validate(spec, 0, err))
        return false;
    lua_State *L = luaL_newstate();
    if (!L) {
        error_set(err, NULL, 0, "cannot create a Lua state (out of memory)");
        return false;
    }
    open_safe_libs(L);
    template_set set = {template_dir, HASH_FNV1A_START};
    /* Lua reads and prints numbers (string.format, tostring, the templates'
     * literals) in the thread's locale: "1,909f" is not CUDA. */
    locale_t previous = c_locale_enter();
    bool ok = render_in_state(L, spec, &set, out, err);
    c_locale_leave(previous);
    lua_close(L);
    if (!ok)
        render_output_free(out);
    return ok;
}

void render_output_free(render_output *out)
{
    if (!out)
        return;
    free(out->source);
    free(out->kernel_name);
    header_storage_free(out->storage);
    memset(out, 0, sizeof *out);
}
