/** The part of Ajv's interface the keyword needs (Ajv comes with Fastify; only its shape is used here). */
interface KeywordHost {
  addKeyword(definition: unknown): unknown;
}

interface FiniteCheck {
  (enabled: boolean, data: unknown): boolean;
  errors?: { keyword: string; message: string; params: object }[] | null;
}

/**
 * Ajv plugin: the `finite` keyword. Ajv skips `minimum`/`maximum` for non-finite numbers, and its
 * coercion turns the query or path text `1e309` into Infinity, which would then pass every bound
 * and fail in the database. A schema with `finite: true` refuses it as a 400 naming the parameter.
 */
export function finiteNumbers<A extends KeywordHost>(ajv: A): A {
  const finite: FiniteCheck = (enabled, data) => {
    finite.errors = enabled && typeof data === 'number' && !Number.isFinite(data) ? [{ keyword: 'finite', message: 'must be a finite number', params: {} }] : null;
    return finite.errors === null;
  };
  // No `type: 'number'`: Ajv would then skip the keyword for the very values it is for.
  ajv.addKeyword({ keyword: 'finite', schemaType: 'boolean', errors: true, validate: finite });
  return ajv;
}

const INPUTS = ['querystring', 'params', 'body', 'headers'] as const;

function markFinite(schema: unknown): void {
  if (typeof schema !== 'object' || schema === null) return;
  const node = schema as Record<string, unknown>;
  if (node.type === 'integer' || node.type === 'number') node.finite = true;
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) value.forEach(markFinite);
    else markFinite(value);
  }
}

/** Every number and integer a route reads from a request is finite: called for each route as it is added. */
export function finiteInputs(schema: Partial<Record<(typeof INPUTS)[number], unknown>> | undefined): void {
  for (const part of INPUTS) markFinite(schema?.[part]);
}
