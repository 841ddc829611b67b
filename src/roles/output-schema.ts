import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { installRoot } from "../install-root.js";
import { ROLES, type Role } from "./role-names.js";

export type ValidationResult = { ok: true } | { ok: false; errors: string[] };

/** The compiled output contracts (R3.1) of all four roles. */
export interface OutputValidator {
  /** The directory the schemas were read from (the runner passes the same files to --json-schema). */
  readonly schemaDir: string;
  /** The raw schema of a role, as read from `<schemaDir>/<role>.json`. */
  schema(role: Role): Readonly<Record<string, unknown>>;
  validateStructured(role: Role, value: unknown): ValidationResult;
}

export class OutputSchemaError extends Error {
  override readonly name = "OutputSchemaError";
}

/** Error strings stay short: a bad key can be long (or a secret; callers redact reasons too). */
const MAX_ERRORS = 20;
const MAX_PARAM = 80;

/** The default schema directory: `<installRoot>/schemas`. */
export function defaultSchemaDir(): string {
  return join(installRoot(), "schemas");
}

/**
 * Reads and compiles `<dir>/<role>.json` for every role. Strict mode, so a schema with an
 * unknown keyword or a type-less constraint is refused here instead of silently not checking.
 * Throws OutputSchemaError when a file is missing, unparsable or does not compile: a broken
 * contract must stop the chain, not let output through unchecked.
 */
export function createOutputValidator(dir: string = defaultSchemaDir()): OutputValidator {
  const ajv = new Ajv({ strict: true, allErrors: true });
  const schemas = new Map<Role, Record<string, unknown>>();
  const validators = new Map<Role, ValidateFunction>();
  for (const role of ROLES) {
    const file = join(dir, `${role}.json`);
    let schema: Record<string, unknown>;
    try {
      schema = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    } catch (error) {
      throw new OutputSchemaError(`cannot read output schema ${file}: ${(error as Error).message}`);
    }
    try {
      validators.set(role, ajv.compile(schema));
    } catch (error) {
      throw new OutputSchemaError(
        `output schema ${file} does not compile: ${(error as Error).message}`,
      );
    }
    schemas.set(role, schema);
  }
  return {
    schemaDir: dir,
    schema(role) {
      const schema = schemas.get(role);
      if (!schema) throw new OutputSchemaError(`no output schema for role ${String(role)}`);
      return schema;
    },
    validateStructured(role, value) {
      const validate = validators.get(role);
      if (!validate) return { ok: false, errors: [`no output schema for role ${String(role)}`] };
      if (validate(value)) return { ok: true };
      return { ok: false, errors: formatErrors(validate.errors ?? []) };
    },
  };
}

// Compiling four schemas costs a few milliseconds; callers that pass no validator share one
// per directory. The cache holds only immutable compiled schemas, no run state.
const cache = new Map<string, OutputValidator>();

/** The validator for `dir` (default `<installRoot>/schemas`), compiled once per process. */
export function outputValidator(dir: string = defaultSchemaDir()): OutputValidator {
  let validator = cache.get(dir);
  if (!validator) {
    validator = createOutputValidator(dir);
    cache.set(dir, validator);
  }
  return validator;
}

/** Validates against the default schemas (see outputValidator). */
export function validateStructured(role: Role, value: unknown): ValidationResult {
  return outputValidator().validateStructured(role, value);
}

function formatErrors(errors: ErrorObject[]): string[] {
  const lines = errors.slice(0, MAX_ERRORS).map(formatError);
  if (errors.length > MAX_ERRORS) lines.push(`… and ${errors.length - MAX_ERRORS} more errors`);
  return lines.length > 0 ? lines : ["does not match the schema"];
}

function formatError(error: ErrorObject): string {
  const where = error.instancePath === "" ? "(root)" : error.instancePath;
  const params = error.params as Record<string, unknown>;
  let detail = "";
  if (error.keyword === "additionalProperties") {
    detail = `: ${clip(String(params.additionalProperty))}`;
  } else if (error.keyword === "enum" && Array.isArray(params.allowedValues)) {
    detail = `: ${params.allowedValues.map(String).join(", ")}`;
  }
  return `${where} ${error.message ?? "is invalid"}${detail}`;
}

function clip(text: string): string {
  return text.length > MAX_PARAM ? `${text.slice(0, MAX_PARAM)}…` : text;
}
