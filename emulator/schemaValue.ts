// Builds a value that satisfies a JSON Schema, for `json_schema` answers and tool-call
// arguments. Covers what structured-output schemas use: type (or a list of types), enum,
// const, properties/required, items/minItems, minimum/maximum, minLength, anyOf/oneOf,
// and $ref into $defs/definitions. `words` supplies string content from the prompt.
// Generation is bounded (limits.ts): the characters produced and the schema nodes visited
// are counted as the value is built, so `minItems: 2000000` of `minLength: 1000` strings
// stops at the cap with a 400 instead of holding every request for minutes.
import { HttpError } from './httpErrors';
import { MAX_SCHEMA_NODES, MAX_SCHEMA_OUTPUT_CHARS } from './limits';

type Schema = Record<string, unknown>;

interface Budget {
  chars: number;
  nodes: number;
  param: string;
}

function spend(budget: Budget, chars: number): void {
  budget.chars += chars;
  budget.nodes += 1;
  if (budget.chars > MAX_SCHEMA_OUTPUT_CHARS || budget.nodes > MAX_SCHEMA_NODES) {
    throw new HttpError(
      413,
      `the ${budget.param} schema asks for a value over the emulator's limit (${MAX_SCHEMA_OUTPUT_CHARS / 1024 / 1024} MB of JSON or ${MAX_SCHEMA_NODES} values): lower minItems or minLength`,
      budget.param,
    );
  }
}

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

export function valueForSchema(schema: unknown, words: () => string, root: unknown = schema, depth = 0, budget: Budget = { chars: 0, nodes: 0, param: 'response_format' }): unknown {
  if (!isSchema(schema) || depth > 12) return null;
  spend(budget, 4);
  if (typeof schema.$ref === 'string' && isSchema(root)) {
    const name = schema.$ref.split('/').pop() ?? '';
    const defs = (root.$defs ?? root.definitions) as Schema | undefined;
    return valueForSchema(defs?.[name], words, root, depth + 1, budget);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const variants = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) return valueForSchema(variants[0], words, root, depth + 1, budget);
  if ('default' in schema) return schema.default;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== 'null') ?? (isSchema(schema.properties) ? 'object' : types[0]);
  switch (type) {
    case 'object': {
      const properties = isSchema(schema.properties) ? schema.properties : {};
      return Object.fromEntries(Object.entries(properties).map(([key, sub]) => [key, valueForSchema(sub, words, root, depth + 1, budget)]));
    }
    case 'array': {
      const count = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
      const max = typeof schema.maxItems === 'number' ? schema.maxItems : count;
      spend(budget, Math.min(count, max)); // separators; refuses an absurd count before allocating
      return Array.from({ length: Math.min(count, max) }, () => valueForSchema(schema.items, words, root, depth + 1, budget));
    }
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
      const value = Math.min(Math.max(min, 1), max);
      return type === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string':
    default: {
      if (schema.format === 'date-time') return '2024-01-01T00:00:00Z';
      if (schema.format === 'date') return '2024-01-01';
      if (schema.format === 'email') return 'dev@example.com';
      if (schema.format === 'uri') return 'https://example.com/';
      let text = words();
      const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
      spend(budget, Math.max(minLength, text.length)); // before building it: one huge minLength is refused at once
      while (text.length < minLength) text += ` ${words()}`;
      if (typeof schema.maxLength === 'number') text = text.slice(0, schema.maxLength);
      return text;
    }
  }
}

/** valueForSchema for one request field (`param` is named in the 413 when over the limit). */
export function boundedValueForSchema(schema: unknown, words: () => string, param: string): unknown {
  return valueForSchema(schema, words, schema, 0, { chars: 0, nodes: 0, param });
}
