//! Regression tests for the outline problems of issue 15, each on a snippet
//! of the real code it was found in (excerpts, shortened where marked; their
//! licenses allow it: Backbone, jQuery-style UMD, Radix UI and expo-modules-
//! core are MIT, rustix is Apache-2.0/MIT).

use toolcap::outline::{Language, Options, outline_with};

/// One line per symbol: "kind name line-end" indented by depth, with the
/// parent when the symbol has one.
fn rendered(lang: &str, source: &str) -> Option<String> {
    let lang = Language::from_name(lang)?; // the language's feature is off
    let o = outline_with(
        source,
        lang,
        &Options {
            budget: None,
            ..Options::default()
        },
    )
    .expect("outline");
    Some(
        o.symbols
            .iter()
            .map(|s| {
                format!(
                    "{}{} {} {}-{}{}\n",
                    "  ".repeat(s.depth),
                    s.kind,
                    s.name,
                    s.line,
                    s.end_line,
                    s.parent
                        .as_deref()
                        .map_or(String::new(), |p| format!(" in {p}"))
                )
            })
            .collect(),
    )
}

fn check(lang: &str, source: &str, expected: &str) {
    if let Some(got) = rendered(lang, source) {
        assert_eq!(got, expected, "{lang}:\n{source}");
    }
}

/// Backbone 1.6.0's UMD wrapper: the factory passed to the wrapper holds the
/// whole library (it outlined to 0 symbols).
#[test]
fn javascript_umd_factory_is_not_a_function_body() {
    check(
        "javascript",
        r#"(function(factory) {
  var root = typeof self == 'object' && self.self === self && self;
  if (typeof define === 'function' && define.amd) {
    define(['underscore', 'jquery', 'exports'], function(_, $, exports) {
      root.Backbone = factory(root, exports, _, $);
    });
  } else {
    root.Backbone = factory(root, {}, root._, root.jQuery);
  }

})(function(root, Backbone, _, $) {
  var previousBackbone = root.Backbone;

  Backbone.noConflict = function() {
    root.Backbone = previousBackbone;
    return this;
  };

  var eventsApi = function(iteratee, events, name, callback, opts) {
    var i = 0, names;
    return events;
  };

  function helper() {
    function inner() {}
  }
});
"#,
        "function noConflict 14-17\nfunction eventsApi 19-22\nfunction helper 24-26\n",
    );
}

/// `(function () { ... }())` and `;(function () { ... }.call(this))` (the
/// call inside the parentheses), and a UMD factory in parentheses
/// (async 2.6's `dist/async.js`).
#[test]
fn javascript_wrappers_with_the_call_inside_the_parentheses() {
    check(
        "javascript",
        "(function () {\n  function a() {}\n}());\n;(function () {\n  var b = function () {};\n}.call(this));\n\
         (function (global, factory) {\n  factory(global);\n}(this, (function (exports) { 'use strict';\n  \
         function slice(arrayLike, start) {\n    return [];\n  }\n})));\n",
        "function a 2-2\nfunction b 5-5\nfunction slice 10-12\n",
    );
}

/// Radix UI's Slot (`@radix-ui/react-slot` 1.1.0, `dist/index.mjs`,
/// shortened): components made with `React.forwardRef` / `memo` are listed.
#[test]
fn react_forward_ref_and_memo_components_are_listed() {
    let source = r#"import * as React from "react";
var Slot = React.forwardRef((props, forwardedRef) => {
  const { children, ...slotProps } = props;
  const childrenArray = React.Children.toArray(children);
  return /* @__PURE__ */ jsx(SlotClone, { ...slotProps, ref: forwardedRef, children });
});
Slot.displayName = "Slot";
const Row = memo(({ item }) => item);
export const Both = React.memo(React.forwardRef((props, ref) => null));
const notAComponent = useMemo(() => 1, []);
"#;
    let expected = "function Slot 2-6\nfunction Row 8-8\nfunction Both 9-9\n";
    check("javascript", source, expected);
    check("tsx", source, expected);
}

/// Object-literal methods belong to the value, not to the module: they were
/// listed as parentless top-level methods.
#[test]
fn object_literal_methods_are_not_top_level_methods() {
    let source = "const handlers = {\n  onClick() {\n    function inner() {}\n    return 1;\n  },\n};\n\
                  class A {\n  m() {}\n}\nexport default {\n  methods: {\n    run() {},\n  },\n};\n";
    let expected = "class A 7-9\n  method m 8-8 in A\n";
    check("javascript", source, expected);
    check("typescript", source, expected);
}

/// expo-modules-core's `FieldOption.swift` (shortened): an operator is
/// named by its operator, not by its return type (`Bool`).
#[test]
fn swift_operators_are_named_by_the_operator() {
    check(
        "swift",
        r#"public struct FieldOption: Equatable, Hashable {
  public let rawValue: Int

  public init(_ rawValue: Int) {
    self.rawValue = rawValue
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    return lhs.rawValue == rhs.rawValue && lhs.key == rhs.key
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(rawValue)
  }
}
prefix func - (p: FieldOption) -> FieldOption { p }
"#,
        "struct FieldOption 1-15\n  method init 4-6 in FieldOption\n  method == 8-10 in FieldOption\n  \
         method hash 12-14 in FieldOption\nfunction - 16-16\n",
    );
}

/// expo-modules-core's `CodedException.kt` (shortened): secondary
/// constructors are listed, as `constructor`.
#[test]
fn kotlin_secondary_constructors_are_listed() {
    check(
        "kotlin",
        r#"open class CodedException(
  message: String?,
  cause: Throwable? = null
) : Exception(message, cause) {
  private var providedCode: String? = null

  constructor(code: String, message: String?, cause: Throwable?) : this(message = message, cause = cause) {
    providedCode = code
  }

  constructor(cause: Throwable) : this(message = cause.localizedMessage, cause = cause)

  constructor() : this(null, null)

  fun describe(): String = "x"
}
"#,
        "class CodedException 1-16\n  method constructor 7-9 in CodedException\n  \
         method constructor 11-11 in CodedException\n  method constructor 13-13 in CodedException\n  \
         method describe 15-15 in CodedException\n",
    );
}

/// rustix 1.1's `src/path/dec_int.rs`: `const _: () = { impl ... };` is not
/// a constant hiding the impls inside it.
#[test]
fn rust_impls_inside_const_underscore_are_listed() {
    check(
        "rust",
        r#"const _: () = {
    impl Integer for isize {}
    impl Integer for usize {
        fn widen(self) -> u64 {
            self as u64
        }
    }
};

const BUF_LEN: usize = 20;
"#,
        "impl isize 2-2\nimpl usize 3-7\n  method widen 4-6 in usize\nconstant BUF_LEN 10-10\n",
    );
}

/// Bash functions named `ns::name` (a common namespacing style) keep their
/// whole name; they are not methods of `ns`.
#[test]
fn bash_functions_named_with_colons_keep_their_name() {
    check(
        "bash",
        "log::info() {\n  printf '%s\\n' \"$*\"\n}\n\nfunction log::warn {\n  log::info \"$@\" >&2\n}\n",
        "function log::info 1-3\nfunction log::warn 5-7\n",
    );
}

/// zod 3.23's `lib/types.d.ts` (shortened): the members of a `declare
/// abstract class` are listed, as those of a `declare class` were.
#[test]
fn typescript_declared_abstract_class_members_are_listed() {
    check(
        "typescript",
        "export declare abstract class ZodType<Output = any, Def = any> {\n    readonly _type: Output;\n    \
         get description(): string | undefined;\n    abstract _parse(input: ParseInput): ParseReturnType<Output>;\n    \
         _getType(input: ParseInput): string;\n}\n",
        "class ZodType 1-6\n  method description 3-3 in ZodType\n  method _parse 4-4 in ZodType\n  \
         method _getType 5-5 in ZodType\n",
    );
}

/// Members of anonymous classes in field initializers (the JDK's
/// `java.util.EnumMap` has `NULL = new Object() { hashCode, toString }`;
/// this is a snippet of the same shape) are not the enclosing class's; the
/// same for Kotlin's anonymous `object :` and Scala's `new T { ... }`.
#[test]
fn anonymous_class_members_are_not_the_enclosing_class_members() {
    check(
        "java",
        "public class EnumMap<K extends Enum<K>, V> {\n    private static final Object NULL = new Object() {\n        \
         public int hashCode() {\n            return 0;\n        }\n    };\n\n    public int size() {\n        \
         return size;\n    }\n}\n",
        "class EnumMap 1-11\n  method size 8-10 in EnumMap\n",
    );
    check(
        "kotlin",
        "class Registry {\n    private val listener = object : Listener {\n        override fun onEvent() {}\n    }\n\n    \
         fun register() {}\n}\n",
        "class Registry 1-7\n  method register 6-6 in Registry\n",
    );
    check(
        "scala",
        "class Pool {\n  val task = new Runnable {\n    def run(): Unit = ()\n  }\n  def submit(): Unit = ()\n}\n",
        "class Pool 1-6\n  method submit 5-5 in Pool\n",
    );
}

/// libuv's `uv.h` (MIT; shortened): `UV_EXTERN` before every declaration
/// broke the parse; a pointer-returning function pointer typedef was missed.
#[test]
fn c_export_macros_and_function_pointer_typedefs() {
    check(
        "c",
        r#"#ifndef UV_H
#define UV_H

#if defined(BUILDING_UV_SHARED)
# define UV_EXTERN __attribute__((visibility("default")))
#else
# define UV_EXTERN /* nothing */
#endif

typedef void* (*uv_malloc_func)(size_t size);

UV_EXTERN unsigned int uv_version(void);
UV_EXTERN const char* uv_version_string(void);
UV_EXTERN int uv_replace_allocator(uv_malloc_func malloc_func,
                                   uv_free_func free_func);

UV_EXTERN uv_loop_t* uv_default_loop(void);
UV_EXTERN int uv_loop_init(uv_loop_t* loop);

#endif /* UV_H */
"#,
        "macro UV_H 2-2\nmacro UV_EXTERN 5-5\nmacro UV_EXTERN 7-7\ntype uv_malloc_func 10-10\n\
         function uv_version 12-12\nfunction uv_version_string 13-13\nfunction uv_replace_allocator 14-15\n\
         function uv_default_loop 17-17\nfunction uv_loop_init 18-18\n",
    );
}

/// LevelDB's `include/leveldb/env.h` (BSD-3; shortened): `class
/// LEVELDB_EXPORT Env` was parsed as a class named LEVELDB_EXPORT followed by
/// errors, losing the classes and their methods.
#[test]
fn cpp_export_macro_in_a_class_head() {
    check(
        "cpp",
        r#"namespace leveldb {

class LEVELDB_EXPORT Env {
 public:
  Env();

  Env(const Env&) = delete;

  virtual ~Env();

  static Env* Default();

  virtual Status NewSequentialFile(const std::string& fname,
                                   SequentialFile** result) = 0;
};

class LEVELDB_EXPORT SequentialFile {
 public:
  SequentialFile() = default;
  virtual Status Skip(uint64_t n) = 0;
};

LEVELDB_EXPORT Status WriteStringToFile(Env* env, const Slice& data,
                                        const std::string& fname);

}  // namespace leveldb
"#,
        "module leveldb 1-26\n  class Env 3-15 in leveldb\n    method Env 5-5 in Env\n    method Env 7-7 in Env\n    \
         method ~Env 9-9 in Env\n    method Default 11-11 in Env\n    method NewSequentialFile 13-14 in Env\n  \
         class SequentialFile 17-21 in leveldb\n    method SequentialFile 19-19 in SequentialFile\n    \
         method Skip 20-20 in SequentialFile\n  function WriteStringToFile 23-24 in leveldb\n",
    );
}

/// moment 2.30's `moment.d.ts` (MIT; shortened): the signatures of one
/// function without an implementation are one symbol, from the first
/// signature to the last, as overloads with an implementation are.
#[test]
fn typescript_declared_overloads_are_one_symbol() {
    check(
        "typescript",
        r#"/**
 * @param strict Strict parsing disables the deprecated fallback.
 */
declare function moment(inp?: moment.MomentInput, strict?: boolean): moment.Moment;
declare function moment(inp?: moment.MomentInput, format?: moment.MomentFormatSpecification, strict?: boolean): moment.Moment;

declare namespace moment {
  export function utc(inp?: MomentInput, strict?: boolean): Moment;
  /**
   * @param strict Strict parsing requires that the format and input match exactly.
   */
  export function utc(inp?: MomentInput, format?: MomentFormatSpecification, strict?: boolean): Moment;

  export function unix(timestamp: number): Moment;
}

declare class Duration {
  get(units: string): number;
  get(units: number): number;
  as(units: string): number;
}
"#,
        "function moment 4-5\nmodule moment 7-15\n  function utc 8-12 in moment\n  function unix 14-14 in moment\n\
         class Duration 17-21\n  method get 18-19 in Duration\n  method as 20-20 in Duration\n",
    );
}

/// {fmt} 9 `args.h` (MIT): an `#if` inside a class head (a base class for
/// old GCC only) lost the class; its members came out as functions.
#[test]
fn cpp_conditional_inside_a_class_head() {
    check(
        "cpp",
        r#"template <typename Context>
class dynamic_format_arg_store
#if FMT_GCC_VERSION && FMT_GCC_VERSION < 409
    // Workaround a GCC template argument substitution bug.
    : public basic_format_args<Context>
#endif
{
 private:
  using char_type = typename Context::char_type;

  unsigned long long get_types() const {
    return detail::is_unpacked_bit | data_.size();
  }
};
"#,
        "class dynamic_format_arg_store 2-14\n  type char_type 9-9 in dynamic_format_arg_store\n  method get_types 11-13 in dynamic_format_arg_store\n",
    );
}

/// A function whose body opens a block differently per branch (`#ifdef`
/// around `if (...) {`): the function and the ones after it were lost.
/// Shape of libuv's and CPython's platform branches; `#if 0` blocks are
/// left out, and whole definitions in each branch are all listed.
#[test]
fn c_conditionals_that_split_a_block() {
    check(
        "c",
        r#"#ifdef _WIN32
int uv__fd(int a) { return 1; }
#else
int uv__fd(int a) { return 2; }
#endif
#if 0
int disabled(void) { return 0; }
#endif
int uv__check(int x) {
#ifdef UV_DEBUG
  if (x > 0 && debug_enabled()) {
#else
  if (x > 0) {
#endif
    return 1;
  }
  return 0;
}
int uv__next(void) { return 0; }
"#,
        "function uv__fd 2-2\nfunction uv__fd 4-4\nfunction uv__check 9-18\nfunction uv__next 19-19\n",
    );
}

/// UniRx `MainThreadScheduler.cs` (MIT): `#if` branches opening different
/// class heads lost the namespace and nested the class wrongly; read with
/// the condition true, the first branch's class holds the members.
#[test]
fn csharp_conditional_class_heads() {
    check(
        "csharp",
        r#"using System;

namespace UniRx
{
#if UniRxLibrary
    public static partial class SchedulerUnity
    {
#else
    public static partial class Scheduler
    {
        public static void SetDefaultForUnity()
        {
            Scheduler.DefaultSchedulers.Iteration = Scheduler.CurrentThread;
        }
#endif
        static IScheduler mainThread;

        public static IScheduler MainThread
        {
            get { return mainThread; }
        }

        public static void Post(Action action) { }
    }
}
"#,
        "module UniRx 3-25\n  class SchedulerUnity 6-24 in UniRx\n    method Post 23-23 in SchedulerUnity\n",
    );
}

/// LevelDB `status.h` (BSD-3): `Status::Status` defined after the class,
/// inside `namespace leveldb`, is a method of Status (it was a function of
/// the namespace).
#[test]
fn cpp_qualified_definitions_inside_a_namespace_are_methods() {
    check(
        "cpp",
        r#"namespace leveldb {
class Status {
 public:
  Status(const Status& rhs);
 private:
  const char* state_;
};

inline Status::Status(const Status& rhs) {
  state_ = (rhs.state_ == nullptr) ? nullptr : CopyState(rhs.state_);
}
inline Status& Status::operator=(Status&& rhs) noexcept {
  std::swap(state_, rhs.state_);
  return *this;
}

}  // namespace leveldb
"#,
        "module leveldb 1-17\n  class Status 2-7 in leveldb\n    method Status 4-4 in Status\n  method Status 9-11 in Status\n  method operator= 12-15 in Status\n",
    );
}

/// pybind11 (BSD-3): conversion operators are named `operator T` (they were
/// missed); a `PYBIND11_TYPE_CASTER(...)` macro call in a class body is not
/// a constructor; `friend` functions defined in a class are functions
/// ({fmt} `uint128_fallback`, MIT).
#[test]
fn cpp_conversion_operators_macro_calls_and_friends() {
    check(
        "cpp",
        r#"template <typename T>
class type_caster<std::complex<T>> {
public:
    explicit operator bool() const { return value != nullptr; }
    operator type &() { return value; }
    PYBIND11_TYPE_CASTER(std::complex<T>, const_name("complex"));
    friend constexpr auto operator==(const uint128_fallback& lhs,
                                     const uint128_fallback& rhs) -> bool {
      return lhs.hi_ == rhs.hi_;
    }
};
handle::operator bool() const { return m_ptr != nullptr; }
"#,
        "class type_caster<std::complex<T>> 2-11\n  method operator bool 4-4 in type_caster<std::complex<T>>\n  method operator type & 5-5 in type_caster<std::complex<T>>\n  function operator== 7-10 in type_caster<std::complex<T>>\nmethod operator bool 12-12 in handle\n",
    );
}

/// Attribute macros in more places: after `explicit` ({fmt} core.h), before
/// a destructor (pybind11 gil.h), a deprecation message over two lines
/// (pybind11 attr.h), a macro call with a trailing comment (pybind11
/// pytypes.h), and after a parameter list (GLib gmessages.h, LGPL-2.1+).
#[test]
fn c_and_cpp_attribute_macros_in_more_places() {
    check(
        "cpp",
        r#"PYBIND11_WARNING_DISABLE_MSVC(4522) // warning C4522: multiple assignment operators
template <typename Policy>
class accessor : public object_api<accessor<Policy>> {
 public:
  explicit FMT_CONSTEXPR accessor(handle obj, key_type key);
  PYBIND11_NOINLINE ~accessor() { dec_ref(); }
};
template <typename T>
struct base {
    PYBIND11_DEPRECATED(
        "base<T>() was deprecated in favor of specifying 'T' as a template argument to class_")
    base() = default;
};
"#,
        "class accessor 3-7\n  method accessor 5-5 in accessor\n  method ~accessor 6-6 in accessor\nstruct base 9-13\n  method base 12-12 in base\n",
    );
    check(
        "c",
        r#"GLIB_AVAILABLE_IN_ALL
void            g_log                   (const gchar    *log_domain,
                                         GLogLevelFlags  log_level,
                                         const gchar    *format,
                                         ...) G_GNUC_PRINTF (3, 4);
GLIB_AVAILABLE_IN_ALL
void            g_logv                  (const gchar    *log_domain,
                                         va_list         args) G_GNUC_PRINTF(3, 0);
"#,
        "function g_log 2-5\nfunction g_logv 7-8\n",
    );
}

/// libuv `uv/tree.h` (BSD-2, from OpenBSD): a comment inside a macro that
/// runs over several lines ended the macro for tree-sitter, and the macro
/// was lost.
#[test]
fn c_comment_inside_a_multi_line_define() {
    check(
        "c",
        "#define SPLAY_HEAD(name, type)                                                \\\n\
struct name {                                                                 \\\n\
  struct type *sph_root; /* root of the tree */                               \\\n\
}\n\
\n\
#define SPLAY_INITIALIZER(root)                                               \\\n\
  { NULL }\n",
        "macro SPLAY_HEAD 1-4\nmacro SPLAY_INITIALIZER 6-7\n",
    );
}

/// edge-js `semversion.cs` (MIT): C# operators and conversion operators
/// were not listed; they are named as written, `operator ==`.
#[test]
fn csharp_operators_are_listed() {
    check(
        "csharp",
        r#"public sealed class SemVersion
{
    public static implicit operator SemVersion(string version)
    {
        return SemVersion.Parse(version);
    }

    public static bool operator ==(SemVersion left, SemVersion right)
    {
        return SemVersion.Equals(left, right);
    }

    ~SemVersion() { }
}
"#,
        "class SemVersion 1-14\n  method operator SemVersion 3-6 in SemVersion\n  method operator == 8-11 in SemVersion\n  method ~SemVersion 13-13 in SemVersion\n",
    );
}

/// neofetch 7.1 (MIT): a parameter expansion with a quoted pattern holding
/// a `/` (`${theme/ '[GTK2/3]'}`) is a parse error for tree-sitter-bash,
/// and every function after it was lost.
#[test]
fn bash_parameter_expansion_with_a_quoted_slash() {
    check(
        "bash",
        r#"get_style() {
    if [[ "$gtk_shorthand" == "on" ]]; then
        theme="${theme// '[GTK'[0-9]']'}"
        theme="${theme/ '[GTK2/3]'}"
        theme="${theme/ '[KDE]'}"
    fi
}

get_theme() {
    name="gtk-theme-name"
    get_style
}
"#,
        "function get_style 1-7\nfunction get_theme 9-12\n",
    );
}

/// busted 2.1 (MIT): a module that returns a function holding its
/// definitions (`return function(busted) ... end`) outlined to nothing; the
/// returned function is a module wrapper, like a JavaScript UMD factory.
#[test]
fn lua_module_returned_as_a_function() {
    check(
        "lua",
        r#"local shuffle = require 'busted.utils'.shuffle

local function sort(elements)
  table.sort(elements, function(t1, t2)
    return t1.name < t2.name
  end)
  return elements
end

return function(busted)
  local block = {}

  function block.reject(descriptor, element)
    element.env[descriptor] = function(...)
      error("not supported", 2)
    end
  end

  local function exec(descriptor, element)
    return busted.safe(descriptor, element.run, element)
  end

  return block
end
"#,
        "function sort 3-8\nfunction reject 13-17 in block\nfunction exec 19-21\n",
    );
}

/// expo-modules-core 1.12 (MIT): with an annotation on the line before it,
/// `annotation class Required` is read by tree-sitter-kotlin as an
/// expression; it is still listed as a class.
#[test]
fn kotlin_annotation_class_after_an_annotation() {
    check(
        "kotlin",
        r#"package expo.modules.kotlin.records

@Target(AnnotationTarget.PROPERTY)
@Retention(AnnotationRetention.RUNTIME)
annotation class Required

class Other
"#,
        "class Required 5-5\nclass Other 7-7\n",
    );
}

/// pybind11 `stl.h` (BSD-3): a macro call over several lines ending in `;`
/// in a class body (`PYBIND11_TYPE_CASTER(Type, const_name("Dict[") + ...);`)
/// is a parse error that lost the next 19 definitions.
#[test]
fn cpp_multi_line_macro_statement_in_a_class() {
    check(
        "cpp",
        r#"template <typename Type, typename Key, typename Value>
struct map_caster {
    bool load(handle src, bool convert) { return true; }

    PYBIND11_TYPE_CASTER(Type,
                         const_name("Dict[") + key_conv::name + const_name(", ") + value_conv::name
                             + const_name("]"));
};

template <typename Type, typename Value>
struct list_caster {
    using value_conv = make_caster<Value>;

    bool load(handle src, bool convert) { return false; }
};
"#,
        "struct map_caster 2-8\n  method load 3-3 in map_caster\nstruct list_caster 11-15\n  type value_conv 12-12 in list_caster\n  method load 14-14 in list_caster\n",
    );
}

/// expo-image 58 `SourceMap.kt` (MIT): a call to a function named like a
/// modifier (`override(...)` in a lambda) is a parse error for
/// tree-sitter-kotlin that lost the whole class.
#[test]
fn kotlin_call_to_a_function_named_like_a_modifier() {
    check(
        "kotlin",
        r#"data class SourceMap(
  @Field val uri: String? = null,
  @Field override val width: Int = 0
) : Record {
  override fun createGlideOptions(context: Context): RequestOptions {
    return RequestOptions().customize(`when` = width != 0) {
      // Override the size for local assets (apart from SVGs).
      override((width * scale).toInt(), (height * scale).toInt())
    }
  }

  fun getCustomHeaders(): Headers = LazyHeaders.DEFAULT
}
"#,
        "class SourceMap 1-13\n  method createGlideOptions 5-10 in SourceMap\n  method getCustomHeaders 12-12 in SourceMap\n",
    );
}

/// Scala 2.11.12 `ZipArchive.scala` (BSD-3; shortened): a class defined in a
/// `lazy val`'s initializer was listed with its methods as the enclosing
/// class's, and `val enum = ...` (an identifier in Scala 2, a keyword for
/// tree-sitter-scala, which reads Scala 3) was a parse error that made the
/// class's own methods functions.
#[test]
fn scala_val_initializers_and_scala2_identifiers_named_enum() {
    check(
        "scala",
        r#"final class FileZipArchive(file: JFile) extends ZipArchive(file) {
  lazy val (root, allDirs) = {
    val root = new DirEntry("/")
    val enum    = zipFile.entries()

    while (enum.hasMoreElements) {
      val zipEntry = enum.nextElement
      if (zipEntry.isDirectory) dir
      else {
        class FileEntry() extends Entry(zipEntry.getName) {
          override def getArchive   = zipFile
        }
      }
    }
    (root, dirs)
  }

  def iterator: Iterator[Entry] = root.iterator
  private lazy val objString = {
    def ofClass = "of class " + obj.getClass.getName
    ofClass
  }
  implicit val stringRepr: IsSeqLike[String] { type A = Char } = null
}
"#,
        "class FileZipArchive 1-24\n  method iterator 18-18 in FileZipArchive\n",
    );
}

/// Scala 2.11.12 `Inliner.scala` (BSD-3; shortened): a call to a method
/// named `inline` (a Scala 3 modifier) lost the class around it.
#[test]
fn scala_call_to_a_method_named_inline() {
    check(
        "scala",
        r#"class Inliner[BT <: BTypes](val btypes: BT) {
  def runInliner(): Unit = {
    for (request <- collectAndOrderInlineRequests) {
      val r = inline(request.callsiteInstruction, request.callsiteStackHeight)
    }
  }

  def inline(callsiteInstruction: MethodInsnNode, stackHeight: Int): List[String] = Nil
}
"#,
        "class Inliner 1-9\n  method runInliner 2-6 in Inliner\n  method inline 8-8 in Inliner\n",
    );
}

/// expo-modules-core 1.12 `AppContext.swift` (MIT; shortened): `#if` between
/// the cases of a `switch` is a parse error for tree-sitter-swift that lost
/// the whole class.
#[test]
fn swift_conditionals_between_switch_cases() {
    check(
        "swift",
        r#"public final class AppContext: NSObject {
  private func handleClientAppNotification(_ notification: Notification) {
    switch notification.name {
    #if os(iOS) || os(tvOS)
    case UIApplication.willEnterForegroundNotification:
      moduleRegistry.post(event: .appEntersForeground)
    #elseif os(macOS)
    case NSApplication.willUnhideNotification:
      moduleRegistry.post(event: .appEntersForeground)
    #endif
    default:
      return
    }
  }

  public func getViewManagers() -> [ViewModuleWrapper] {
    return []
  }
}
"#,
        "class AppContext 1-19\n  method handleClientAppNotification 2-14 in AppContext\n  method getViewManagers 16-18 in AppContext\n",
    );
}
