/** A step invocation that cannot be built safely: fail closed before anything starts. */
export class ProviderConfigError extends Error {
  override readonly name = "ProviderConfigError";
}
