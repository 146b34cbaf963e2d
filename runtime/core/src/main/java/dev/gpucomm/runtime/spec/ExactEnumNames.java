package dev.gpucomm.runtime.spec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;

/**
 * Makes enum values match their names exactly, as the CRD's enum schema does: Jackson on its own
 * trims {@code "bf16 "} to a match, which the API server would refuse.
 */
final class ExactEnumNames {
  private ExactEnumNames() {}

  /** A module that wraps every enum deserializer of the mapper it is registered with. */
  static SimpleModule module() {
    SimpleModule module = new SimpleModule("ExactEnumNames");
    module.setDeserializerModifier(
        new BeanDeserializerModifier() {
          @Override
          public JsonDeserializer<?> modifyEnumDeserializer(
              DeserializationConfig config,
              JavaType type,
              BeanDescription description,
              JsonDeserializer<?> deserializer) {
            return new Exact(deserializer);
          }
        });
    return module;
  }

  private static final class Exact extends DelegatingDeserializer {
    Exact(JsonDeserializer<?> delegate) {
      super(delegate);
    }

    @Override
    protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> delegate) {
      return new Exact(delegate);
    }

    @Override
    public Object deserialize(JsonParser parser, DeserializationContext context)
        throws IOException {
      if (parser.hasToken(JsonToken.VALUE_STRING)) {
        String text = parser.getText();
        // trim() also drops control characters, which Jackson's own fallback match ignores
        if (!text.equals(text.strip()) || !text.equals(text.trim())) {
          return context.handleWeirdStringValue(handledType(), text, "surrounded by white space");
        }
      }
      return super.deserialize(parser, context);
    }
  }
}
