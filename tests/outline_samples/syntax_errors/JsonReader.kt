// Excerpt of moshi moshi/src/main/java/com/squareup/moshi/JsonReader.kt (Apache License 2.0,
// Copyright (C) 2010 Google Inc., Square, Inc.), lines 16, 174-180 and 520-647.
package com.squareup.moshi

public sealed class JsonReader : Closeable {
  // The nesting stack. Using a manual array rather than an ArrayList saves 20%. This stack will
  // grow itself up to 256 levels of nesting including the top-level document. Deeper nesting is
  // prone to trigger StackOverflowErrors.
  @JvmField protected var stackSize: Int = 0

  @JvmField protected var scopes: IntArray
  /** Returns the tag value for the given class key. */
  @CheckReturnValue
  public fun <T : Any> tag(clazz: Class<T>): T? {
    @Suppress("UNCHECKED_CAST")
    return tags?.let { it[clazz] as T? }
  }

  /** Assigns the tag value using the given class key and value. */
  public fun <T : Any> setTag(clazz: Class<T>, value: T) {
    require(clazz.isAssignableFrom(value.javaClass)) { "Tag value must be of type ${clazz.name}" }
    val tagsToUse = tags ?: LinkedHashMap<Class<*>, Any>().also { tags = it }
    tagsToUse[clazz] = value
  }

  /**
   * Changes the reader to treat the next name as a string value. This is useful for map adapters so
   * that arbitrary type adapters can use [nextString] to read a name value.
   *
   * In this example, calling this method allows two sequential calls to [nextString]:
   * ```java
   * JsonReader reader = JsonReader.of(new Buffer().writeUtf8("{\"a\":\"b\"}"));
   * reader.beginObject();
   * reader.promoteNameToValue();
   * assertEquals("a", reader.nextString());
   * assertEquals("b", reader.nextString());
   * reader.endObject();
   * ```
   */
  @Throws(IOException::class) public abstract fun promoteNameToValue()

  /**
   * A set of strings to be chosen with [selectName] or [selectString]. This prepares the encoded
   * values of the strings so they can be read directly from the input source.
   */
  public class Options
  private constructor(
    internal val strings: Array<out String>,
    internal val doubleQuoteSuffix: OkioOptions,
  ) {
    /** Returns a copy of this [Option's][Options] strings. */
    public fun strings(): List<String> {
      return buildList(strings.size) {
        for (string in strings) {
          add(string)
        }
      }
    }

    public companion object {
      @CheckReturnValue
      @JvmStatic
      public fun of(vararg strings: String): Options {
        return try {
          val buffer = Buffer()
          val result =
            Array(strings.size) { i ->
              buffer.string(strings[i])
              buffer.readByte() // Skip the leading double quote (but leave the trailing one).
              buffer.readByteString()
            }
          Options(strings.clone(), OkioOptions.of(*result))
        } catch (e: IOException) {
          throw AssertionError(e)
        }
      }
    }
  }

  /** A structure, name, or value type in a JSON-encoded string. */
  public enum class Token {
    /**
     * The opening of a JSON array. Written using [JsonWriter.beginArray] and read using
     * [JsonReader.beginArray].
     */
    BEGIN_ARRAY,

    /**
     * The closing of a JSON array. Written using [JsonWriter.endArray] and read using
     * [JsonReader.endArray].
     */
    END_ARRAY,

    /**
     * The opening of a JSON object. Written using [JsonWriter.beginObject] and read using
     * [JsonReader.beginObject].
     */
    BEGIN_OBJECT,

    /**
     * The closing of a JSON object. Written using [JsonWriter.endObject] and read using
     * [JsonReader.endObject].
     */
    END_OBJECT,

    /**
     * A JSON property name. Within objects, tokens alternate between names and their values.
     * Written using [JsonWriter.name] and read using [JsonReader.nextName]
     */
    NAME,

    /** A JSON string. */
    STRING,

    /** A JSON number represented in this API by a Java `double`, `long`, or `int`. */
    NUMBER,

    /** A JSON `true` or `false`. */
    BOOLEAN,

    /** A JSON `null`. */
    NULL,

    /**
     * The end of the JSON stream. This sentinel value is returned by [JsonReader.peek] to signal
     * that the JSON-encoded value has no more tokens.
     */
    END_DOCUMENT,
  }

  public companion object {
    /** Returns a new instance that reads UTF-8 encoded JSON from `source`. */
    @CheckReturnValue
    @JvmStatic
    public fun of(source: BufferedSource): JsonReader {
      return `-JsonUtf8Reader`(source)
    }
  }
}
