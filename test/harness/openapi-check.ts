/**
 * Every request our code sends to GitHub is checked against GitHub's own API description:
 * REST against the OpenAPI document in `@octokit/openapi` (method, path template, path and
 * query parameters, JSON request body), GraphQL against the schema in
 * `@octokit/graphql-schema` (the document, and the variables against their declared types).
 * A wrong path, method, parameter or body fails the test.
 *
 * Stricter than GitHub on one point, on purpose: an unknown property in a request body fails
 * (GitHub silently ignores it, so a misspelt `conclsion` would otherwise pass).
 *
 * Also here: `mockGitHub()`, a nock-based fake that records each request, checks it, answers
 * it (optionally checking the fake answer against the documented response schema too), and
 * can simulate a timeout (`{ hang: true }`) or a dropped connection (`{ networkError }`).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { schema as githubGraphql } from "@octokit/graphql-schema";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import {
  buildClientSchema,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  type IntrospectionQuery,
  parse,
  validate as validateGraphql,
} from "graphql";
import nock from "nock";
import { ProbotOctokit } from "probot";

// nock 15 (through @mswjs/interceptors) calls Promise.withResolvers, which Node 20 lacks; without
// this every intercepted request fails with "Promise.withResolvers is not a function".
if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== "function") {
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    value<T>() {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

export type DescriptionName = "api.github.com" | "ghec" | "ghes-3.17" | "ghes-3.18" | "ghes-3.19";

/** What GHES requests are checked against: the newest GHES description in the package. */
export const GHES_DESCRIPTION: DescriptionName = "ghes-3.19";

export interface RequestToCheck {
  method: string;
  /** Path with query string, e.g. `/repos/o/r/issues/1/comments?per_page=100`. */
  path: string;
  /** Parsed JSON body, or undefined when there was none. */
  body?: unknown;
}

export interface CheckOptions {
  /** Defaults to GHES when the path starts with `/api/v3/` or is `/api/graphql`. */
  description?: DescriptionName;
  /** Prefix to strip before matching (`/api/v3` for GHES); detected when not given. */
  pathPrefix?: string;
}

export type OpenApiMatch =
  | {
      kind: "rest";
      operationId: string;
      method: string;
      template: string;
      pathParams: Record<string, string>;
      query: Record<string, string>;
    }
  | { kind: "graphql"; operationName: string | null; fields: string[] };

export class OpenApiMismatchError extends Error {
  override name = "OpenApiMismatchError";
  constructor(
    readonly request: RequestToCheck,
    readonly problems: string[],
  ) {
    super(
      `${request.method} ${request.path} does not match GitHub's API:\n- ${problems.join("\n- ")}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Loading descriptions
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;
const require = createRequire(import.meta.url);
const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head"] as const;

interface Route {
  template: string;
  method: string;
  regex: RegExp;
  paramNames: string[];
  literalSegments: number;
  operation: Json;
  pathItem: Json;
}

interface Description {
  doc: Json;
  routes: Route[];
  validators: Map<string, ValidateFunction>;
}

const descriptions = new Map<DescriptionName, Description>();

function description(name: DescriptionName): Description {
  const cached = descriptions.get(name);
  if (cached) return cached;
  // Not `require("@octokit/openapi")`: its index loads all ten descriptions (~450 MB).
  const dir = dirname(require.resolve("@octokit/openapi/package.json"));
  const doc = JSON.parse(readFileSync(join(dir, "generated", `${name}.json`), "utf8")) as Json;
  const routes: Route[] = [];
  for (const [template, pathItem] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method] as Json | undefined;
      if (!operation) continue;
      const params = parameters(doc, pathItem, operation);
      const paramNames: string[] = [];
      let literalSegments = 0;
      const pattern = template
        .split("/")
        .map((segment) => {
          const m = /^\{([^}]+)\}$/.exec(segment);
          if (!m) {
            literalSegments += segment === "" ? 0 : 1;
            return escapeRegex(segment);
          }
          const name = m[1] ?? "";
          paramNames.push(name);
          const multi = params.find((p) => p.name === name && p.in === "path")?.["x-multi-segment"];
          return multi === true ? "(.+)" : "([^/]+)";
        })
        .join("/");
      routes.push({
        template,
        method: method.toUpperCase(),
        regex: new RegExp(`^${pattern}$`),
        paramNames,
        literalSegments,
        operation,
        pathItem,
      });
    }
  }
  // Most specific first: `/repos/{o}/{r}/issues/comments/{id}` before `/repos/{o}/{r}/issues/{n}/…`.
  routes.sort((a, b) => b.literalSegments - a.literalSegments);
  const loaded = { doc, routes, validators: new Map() };
  descriptions.set(name, loaded);
  return loaded;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function resolve(doc: Json, value: unknown): Json {
  let current = value as Json;
  for (let i = 0; i < 20 && current && typeof current.$ref === "string"; i++) {
    current = pointer(doc, current.$ref);
  }
  return current;
}

function pointer(doc: Json, ref: string): Json {
  if (!ref.startsWith("#/")) throw new Error(`external $ref not supported: ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    node = (node as Json | undefined)?.[key];
  }
  if (node === undefined) throw new Error(`dangling $ref ${ref}`);
  return node as Json;
}

function parameters(doc: Json, pathItem: Json, operation: Json): Json[] {
  const all = [
    ...((pathItem.parameters as unknown[]) ?? []),
    ...((operation.parameters as unknown[]) ?? []),
  ];
  return all.map((p) => resolve(doc, p));
}

/**
 * A self-contained copy of a schema with every `$ref` inlined. With `strictObjects`, object
 * schemas that list properties and say nothing about others get `additionalProperties: false`
 * — except the branches of anyOf/oneOf/allOf, which only add constraints to their parent.
 */
function inline(
  doc: Json,
  schema: unknown,
  strictObjects: boolean,
  seen: string[] = [],
  branch = false,
): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(doc, s, strictObjects, seen));
  if (!schema || typeof schema !== "object") return schema;
  const node = schema as Json;
  if (typeof node.$ref === "string") {
    // A recursive schema (rare in request bodies) is accepted as anything past one level.
    if (seen.includes(node.$ref)) return {};
    return inline(doc, pointer(doc, node.$ref), strictObjects, [...seen, node.$ref], branch);
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "example" || key === "examples" || key === "description") continue;
    if (key === "properties" || key === "patternProperties") {
      out[key] = Object.fromEntries(
        Object.entries(value as Json).map(([k, v]) => [k, inline(doc, v, strictObjects, seen)]),
      );
    } else if (key === "anyOf" || key === "oneOf" || key === "allOf") {
      out[key] = (value as unknown[]).map((v) => inline(doc, v, strictObjects, seen, true));
    } else if (key === "enum" || key === "required" || key === "default" || key === "const") {
      out[key] = value;
    } else {
      out[key] = inline(doc, value, strictObjects, seen);
    }
  }
  if (
    strictObjects &&
    !branch &&
    out.properties !== undefined &&
    out.additionalProperties === undefined &&
    out.patternProperties === undefined
  ) {
    out.additionalProperties = false;
  }
  // OpenAPI 3.0's `nullable` beside no `type` (e.g. on an allOf, as in an issue's `milestone`)
  // is something Ajv refuses to compile: say the same thing as "this, or null".
  if (out.nullable === true && out.type === undefined) {
    const { nullable: _n, ...rest } = out;
    return { anyOf: [rest, { type: "null" }] };
  }
  return out;
}

const ajv = new Ajv({
  strict: false,
  allErrors: true,
  logger: false,
  formats: {
    "date-time": /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i,
    date: /^\d{4}-\d{2}-\d{2}$/,
    uri: (value: string) => URL.canParse(value),
    email: /^[^\s@]+@[^\s@]+$/,
    "uri-template": true,
    "repo.nwo": /^[^/\s]+\/[^/\s]+$/,
    binary: true,
    int32: true,
    int64: true,
    double: true,
    timestamp: true,
  },
});

function validator(desc: Description, key: string, schema: () => unknown): ValidateFunction {
  let fn = desc.validators.get(key);
  if (!fn) {
    fn = ajv.compile(schema() as object);
    desc.validators.set(key, fn);
  }
  return fn;
}

function formatErrors(where: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).slice(0, 10).map((e) => {
    const extra =
      e.keyword === "additionalProperties"
        ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})`
        : e.keyword === "enum"
          ? ` (${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)})`
          : "";
    return `${where}${e.instancePath || ""} ${e.message ?? e.keyword}${extra}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Checking requests
// ---------------------------------------------------------------------------------------------

function pickDescription(
  pathname: string,
  options: CheckOptions,
): { name: DescriptionName; prefix: string } {
  const ghes = pathname.startsWith("/api/v3/") || pathname === "/api/graphql";
  const prefix = options.pathPrefix ?? (pathname.startsWith("/api/v3/") ? "/api/v3" : "");
  return { name: options.description ?? (ghes ? GHES_DESCRIPTION : "api.github.com"), prefix };
}

export function checkRequest(
  req: RequestToCheck,
  options: CheckOptions = {},
): { ok: true; match: OpenApiMatch } | { ok: false; problems: string[] } {
  const url = new URL(req.path, "http://github.invalid");
  const method = req.method.toUpperCase();
  const { name, prefix } = pickDescription(url.pathname, options);
  if (url.pathname === "/graphql" || url.pathname === "/api/graphql") {
    return checkGraphql(method, req.body);
  }
  if (prefix && !url.pathname.startsWith(`${prefix}/`)) {
    return { ok: false, problems: [`path does not start with the API prefix ${prefix}`] };
  }
  const pathname = url.pathname.slice(prefix.length);
  const desc = description(name);
  const candidates = desc.routes.filter((r) => r.regex.test(pathname));
  if (candidates.length === 0) {
    return { ok: false, problems: [`no operation in ${name} has a path matching ${pathname}`] };
  }
  const route = candidates.find((r) => r.method === method);
  if (!route) {
    const methods = [...new Set(candidates.map((r) => `${r.method} ${r.template}`))].join(", ");
    return { ok: false, problems: [`no ${method} operation for ${pathname}; there is ${methods}`] };
  }
  const problems: string[] = [];
  const operationId = String(route.operation.operationId);
  const params = parameters(desc.doc, route.pathItem, route.operation);
  const values = route.regex.exec(pathname)?.slice(1) ?? [];
  const pathParams: Record<string, string> = {};
  route.paramNames.forEach((param, i) => {
    pathParams[param] = decodeURIComponent(values[i] ?? "");
  });
  for (const [param, value] of Object.entries(pathParams)) {
    const spec = params.find((p) => p.name === param && p.in === "path");
    if (spec) problems.push(...checkParam(desc, operationId, spec, value, "path"));
  }
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) query[key] = value;
  for (const [key, value] of Object.entries(query)) {
    const spec = params.find((p) => p.name === key && p.in === "query");
    if (!spec) {
      problems.push(`unknown query parameter "${key}" for ${operationId}`);
      continue;
    }
    problems.push(...checkParam(desc, operationId, spec, value, "query"));
  }
  for (const p of params) {
    if (p.in === "query" && p.required === true && !(String(p.name) in query)) {
      problems.push(`missing required query parameter "${String(p.name)}"`);
    }
  }
  problems.push(...checkBody(desc, route, operationId, req.body));
  if (problems.length > 0) return { ok: false, problems: [`${operationId}:`, ...problems] };
  return {
    ok: true,
    match: { kind: "rest", operationId, method, template: route.template, pathParams, query },
  };
}

function checkParam(
  desc: Description,
  operationId: string,
  spec: Json,
  raw: string,
  where: string,
): string[] {
  const schema = resolve(desc.doc, spec.schema ?? {});
  const fn = validator(desc, `${operationId}:${where}:${String(spec.name)}`, () =>
    inline(desc.doc, schema, false),
  );
  const type = schema.type;
  let value: unknown = raw;
  if (type === "integer" || type === "number")
    value = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  else if (type === "boolean") value = raw === "true" ? true : raw === "false" ? false : raw;
  else if (type === "array") value = raw.split(",");
  return fn(value) ? [] : formatErrors(`${where} parameter ${String(spec.name)}`, fn.errors);
}

function checkBody(desc: Description, route: Route, operationId: string, body: unknown): string[] {
  const requestBody = route.operation.requestBody
    ? resolve(desc.doc, route.operation.requestBody)
    : undefined;
  const empty = body === undefined || body === null || body === "";
  if (!requestBody) {
    return empty ? [] : [`${operationId} takes no request body, but one was sent`];
  }
  if (empty) return requestBody.required === true ? ["the required request body is missing"] : [];
  const content = (requestBody.content ?? {}) as Record<string, Json>;
  const json = content["application/json"];
  if (!json?.schema)
    return [`body sent, but ${operationId} takes ${Object.keys(content).join(", ")}`];
  const fn = validator(desc, `${operationId}:body`, () => inline(desc.doc, json.schema, true));
  return fn(body) ? [] : formatErrors("body", fn.errors);
}

let graphqlSchema: GraphQLSchema | undefined;
function githubGraphqlSchema(): GraphQLSchema {
  graphqlSchema ??= buildClientSchema(githubGraphql.json as unknown as IntrospectionQuery);
  return graphqlSchema;
}

function checkGraphql(
  method: string,
  body: unknown,
): { ok: true; match: OpenApiMatch } | { ok: false; problems: string[] } {
  if (method !== "POST") return { ok: false, problems: [`GraphQL takes POST, not ${method}`] };
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    return { ok: false, problems: ["GraphQL body must be a JSON object"] };
  }
  const { query, variables, operationName, ...rest } = body as Json;
  const problems: string[] = [];
  if (Object.keys(rest).length > 0)
    problems.push(`unknown GraphQL body keys: ${Object.keys(rest).join(", ")}`);
  if (typeof query !== "string")
    return { ok: false, problems: ["GraphQL body has no query string"] };
  if (
    variables !== undefined &&
    (typeof variables !== "object" || variables === null || Array.isArray(variables))
  ) {
    problems.push("GraphQL variables must be an object");
  }
  let documentNode: ReturnType<typeof parse>;
  try {
    documentNode = parse(query);
  } catch (error) {
    return { ok: false, problems: [`GraphQL syntax: ${(error as Error).message}`] };
  }
  const schema = githubGraphqlSchema();
  problems.push(...validateGraphql(schema, documentNode).map((e) => `GraphQL: ${e.message}`));
  const name = typeof operationName === "string" ? operationName : null;
  const operation = getOperationAST(documentNode, name);
  if (!operation) {
    problems.push("GraphQL document must hold exactly one operation (or name one)");
  } else if (problems.length === 0) {
    const coerced = getVariableValues(
      schema,
      operation.variableDefinitions ?? [],
      (variables ?? {}) as Json,
    );
    for (const e of coerced.errors ?? []) problems.push(`GraphQL variables: ${e.message}`);
  }
  if (problems.length > 0) return { ok: false, problems };
  const fields = (operation?.selectionSet.selections ?? []).flatMap((s) =>
    s.kind === "Field" ? [s.name.value] : [],
  );
  return {
    ok: true,
    match: { kind: "graphql", operationName: operation?.name?.value ?? null, fields },
  };
}

/**
 * Load descriptions (and the GraphQL schema) ahead of time — a few hundred ms each — so that
 * the first checked request of a test is not slower than a client timeout under test.
 */
export function warmUpOpenApi(names: DescriptionName[] = ["api.github.com"]): void {
  for (const name of names) description(name);
  githubGraphqlSchema();
}

/** Throws OpenApiMismatchError unless the request matches GitHub's description. */
export function assertMatchesOpenApi(
  req: RequestToCheck,
  options: CheckOptions = {},
): OpenApiMatch {
  const result = checkRequest(req, options);
  if (!result.ok) throw new OpenApiMismatchError(req, result.problems);
  return result.match;
}

/** Problems with a fake 2xx answer to a REST request, checked against the documented response. */
export function checkResponse(
  req: RequestToCheck,
  status: number,
  body: unknown,
  options: CheckOptions = {},
): string[] {
  const result = checkRequest(req, options);
  if (!result.ok || result.match.kind !== "rest" || status < 200 || status >= 300) return [];
  const match = result.match;
  const { name } = pickDescription(new URL(req.path, "http://github.invalid").pathname, options);
  const desc = description(name);
  const route = desc.routes.find((r) => r.template === match.template && r.method === match.method);
  const responses = (route?.operation.responses ?? {}) as Json;
  if (!(String(status) in responses)) {
    return [`${match.operationId} does not document a ${status} response`];
  }
  const response = resolve(desc.doc, responses[String(status)]);
  const schema = ((response.content ?? {}) as Record<string, Json>)["application/json"]?.schema;
  if (!schema) return [];
  const fn = validator(desc, `${match.operationId}:response:${status}`, () =>
    inline(desc.doc, schema, false),
  );
  return fn(body) ? [] : formatErrors(`response ${status}`, fn.errors);
}

/**
 * A documented example answer for an operation (a deep copy; change what the case needs).
 * `template` is the OpenAPI path, e.g. `/repos/{owner}/{repo}/check-runs`.
 */
export function openApiExample(
  method: string,
  template: string,
  status?: number,
  name: DescriptionName = "api.github.com",
): Json {
  const desc = description(name);
  const route = desc.routes.find(
    (r) => r.template === template && r.method === method.toUpperCase(),
  );
  if (!route) throw new Error(`no ${method} ${template} in ${name}`);
  const responses = route.operation.responses as Json;
  const code = status ?? Number(Object.keys(responses).find((s) => s.startsWith("2")));
  const response = resolve(desc.doc, responses[String(code)]);
  const media = ((response.content ?? {}) as Record<string, Json>)["application/json"];
  const examples = (media?.examples ?? {}) as Json;
  const first = Object.values(examples)[0];
  if (!first) throw new Error(`${method} ${template} ${code} has no example`);
  let value = resolve(desc.doc, first).value as Json;
  // Some examples' values are themselves references to a shared example (an issue's is).
  while (value && typeof value.$ref === "string") value = resolve(desc.doc, value).value as Json;
  return structuredClone(value) as Json;
}

// ---------------------------------------------------------------------------------------------
// A recording fake GitHub on nock
// ---------------------------------------------------------------------------------------------

export interface RecordedRequest extends RequestToCheck {
  /** Path without query and without the API prefix. */
  pathname: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** The OpenAPI/GraphQL match, or the problems found. */
  check: { ok: true; match: OpenApiMatch } | { ok: false; problems: string[] };
}

export interface MockReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type MockResponse =
  | MockReply
  | ((req: RecordedRequest) => MockReply | Promise<MockReply>)
  /** Never answers until the client gives up (its timeout): the outcome is unknown to it. */
  | { hang: true }
  /** The connection fails after the request was sent (e.g. ECONNRESET). */
  | { networkError: string };

export interface MockGitHubOptions {
  /** Default https://api.github.com; for GHES e.g. http://127.0.0.1:3000/api/v3. */
  baseUrl?: string;
  description?: DescriptionName;
  /** Check fake 2xx answers against the documented response schema (default true). */
  validateResponses?: boolean;
}

export interface GitHubMock {
  readonly baseUrl: string;
  /** Every request that reached the fake, in order. */
  readonly requests: RecordedRequest[];
  /**
   * Answer the next `times` (default 1) requests for `method` and `route`: a path relative to
   * the base URL, `{name}` matching one segment, or a RegExp on that path. Query is ignored.
   */
  on(
    method: string,
    route: string | RegExp,
    response: MockResponse,
    options?: { times?: number; optional?: boolean },
  ): GitHubMock;
  /** Requests as `METHOD /path` lines, for assertions on order. */
  lines(): string[];
  /** Throws if a request did not match GitHub's API, a fake answer did not match its schema, a request found no route, or a route was not used. */
  verify(): void;
  /** Remove this mock's interceptors and listeners; answers hanging requests. */
  close(): void;
}

export function mockGitHub(options: MockGitHubOptions = {}): GitHubMock {
  nock.disableNetConnect();
  const base = new URL(options.baseUrl ?? "https://api.github.com");
  const prefix = base.pathname.replace(/\/$/, "");
  const checkOptions: CheckOptions = {
    pathPrefix: prefix,
    ...(options.description ? { description: options.description } : {}),
  };
  const validateResponses = options.validateResponses ?? true;
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  const responseChecks: Array<() => string[]> = [];
  const unmatched: string[] = [];
  const interceptors: nock.Interceptor[] = [];
  const hanging = new Set<() => void>();
  const scope = nock(base.origin);

  const onNoMatch = (req: Request) => {
    if (new URL(req.url).origin === base.origin) unmatched.push(`${req.method} ${req.url}`);
  };
  nock.emitter.on("no match", onNoMatch);

  const mock: GitHubMock = {
    baseUrl: base.href.replace(/\/$/, ""),
    requests,
    on(method, route, response, onOptions = {}) {
      const matcher = routeMatcher(route);
      const interceptor = scope.intercept((uriPath: string) => {
        const relative = relativePath(new URL(uriPath, base.origin).pathname);
        return relative !== null && matcher(relative);
      }, method.toUpperCase());
      interceptor.times(onOptions.times ?? 1);
      if (onOptions.optional) interceptor.optionally();
      interceptors.push(interceptor);
      interceptor.reply((async (request: Request) => {
        const recorded = await record(request);
        if (!recorded.check.ok) {
          problems.push(
            `${recorded.method} ${recorded.path}: ${recorded.check.problems.join("; ")}`,
          );
          return [
            422,
            { message: `Invalid request.\n\n${recorded.check.problems.join("\n")}` },
            { "content-type": "application/json; charset=utf-8" },
          ];
        }
        if ("hang" in response) {
          return new Promise((resolveReply) => {
            const answer = () => {
              hanging.delete(answer);
              resolveReply([504, { message: "gave up" }, { "content-type": "application/json" }]);
            };
            hanging.add(answer);
            // An aborted request is never answered: a reply delivered to a request the client
            // already aborted makes undici throw an uncaught TypeError on its socket (Node 20).
            request.signal.addEventListener("abort", () => hanging.delete(answer), { once: true });
          });
        }
        if ("networkError" in response) {
          throw Object.assign(new Error(`simulated ${response.networkError}`), {
            code: response.networkError,
          });
        }
        const reply = typeof response === "function" ? await response(recorded) : response;
        if (validateResponses) {
          // Checked in verify(), not here: compiling a large response schema takes long
          // enough to trip the short client timeouts some tests use.
          responseChecks.push(() =>
            checkResponse(recorded, reply.status, reply.body, checkOptions).map(
              (p) => `fake answer to ${recorded.method} ${recorded.path}: ${p}`,
            ),
          );
        }
        const headers = { "content-type": "application/json; charset=utf-8", ...reply.headers };
        return [reply.status, reply.body === undefined ? "" : JSON.stringify(reply.body), headers];
      }) as unknown as (uri: string, body: nock.Body) => nock.ReplyFnResult);
      return mock;
    },
    lines() {
      return requests.map((r) => `${r.method} ${r.pathname}`);
    },
    verify() {
      // pendingMocks leaves out the optional routes.
      const pending = scope.pendingMocks();
      const all = [
        ...problems,
        ...responseChecks.flatMap((check) => check()),
        ...unmatched.map((u) => `no route for ${u}`),
        ...pending.map((p) => `route never used: ${p}`),
      ];
      if (all.length > 0) throw new Error(`fake GitHub:\n- ${all.join("\n- ")}`);
    },
    close() {
      for (const answer of [...hanging]) answer();
      for (const interceptor of interceptors) nock.removeInterceptor(interceptor);
      nock.emitter.removeListener("no match", onNoMatch);
    },
  };

  /** The path below the base URL; GHES serves GraphQL at /api/graphql, beside /api/v3. */
  function relativePath(pathname: string): string | null {
    if (prefix === "/api/v3" && pathname === "/api/graphql") return "/graphql";
    if (!pathname.startsWith(prefix)) return null;
    return pathname.slice(prefix.length);
  }

  async function record(request: Request): Promise<RecordedRequest> {
    const url = new URL(request.url);
    const text = await request.text();
    let body: unknown;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const req = { method: request.method.toUpperCase(), path: url.pathname + url.search, body };
    const recorded: RecordedRequest = {
      ...req,
      pathname: relativePath(url.pathname) ?? url.pathname,
      query,
      headers,
      check: checkRequest(req, checkOptions),
    };
    requests.push(recorded);
    return recorded;
  }

  return mock;
}

function routeMatcher(route: string | RegExp): (pathname: string) => boolean {
  if (route instanceof RegExp) return (p) => route.test(p);
  const regex = new RegExp(
    `^${route
      .split("/")
      .map((s) => (/^\{[^}]+\}$/.test(s) ? "[^/]+" : escapeRegex(s)))
      .join("/")}$`,
  );
  return (p) => regex.test(p);
}

/**
 * Octokit options for tests, with throttling and retry plugins kept on: retries wait 1 ms
 * instead of 1 s, rate-limit waits likewise, and the throttler's 1 s / 3 s spacing of writes is replaced by a
 * pass-through — the plugin itself stays active (rate-limit handling, the global limiter).
 * For Probot: `new Probot({ githubToken: "test", Octokit: ProbotOctokit.defaults(testOctokitOptions()) })`.
 */
export function testOctokitOptions(): { retry: { retryAfterBaseValue: number }; throttle: never } {
  const passThrough = {
    key: () => ({
      // Called as schedule(jobOptions, fn, ...args) or schedule(fn, ...args).
      schedule: (...args: unknown[]) => {
        const fnIndex = typeof args[0] === "function" ? 0 : 1;
        const fn = args[fnIndex] as (...a: unknown[]) => unknown;
        return Promise.resolve(fn(...args.slice(fnIndex + 1)));
      },
    }),
  };
  return {
    retry: { retryAfterBaseValue: 1 },
    // Rate-limit waits in ms instead of s (the plugin multiplies by this base).
    throttle: { write: passThrough, notifications: passThrough, retryAfterBaseValue: 1 } as never,
  };
}

/** An Octokit like the one Probot hands to handlers (`ProbotOctokit`), with a fake token. */
export function createTestOctokit(
  options: { baseUrl?: string } = {},
): InstanceType<typeof ProbotOctokit> {
  return new ProbotOctokit({
    auth: { token: "test" },
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...testOctokitOptions(),
    log: { debug() {}, info() {}, warn() {}, error() {} },
  });
}
