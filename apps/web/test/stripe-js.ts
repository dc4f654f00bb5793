/**
 * Stripe.js as the Stripe-mode payment forms use it (no network: js.stripe.com is never loaded).
 * One stub for every test file: the web tests share their modules (`isolate: false`), so the
 * lazily loaded payment form binds to whichever file's mock of `@stripe/stripe-js/pure` came
 * first; each file mocks it with this module, and a test clears `calls` before it reads them.
 */
export const stripeJs = (() => {
  const calls: { method: string; args: unknown }[] = [];
  const element = {
    mount: (el: HTMLElement) => {
      el.textContent = "Stripe payment element";
    },
    on: (event: string, cb: () => void) => {
      if (event === "ready") cb();
    },
    destroy: () => undefined,
  };
  const elements = {
    create: (type: string) => {
      calls.push({ method: "elements.create", args: type });
      return element;
    },
    submit: async () => ({}),
    update: (args: unknown) => calls.push({ method: "elements.update", args }),
  };
  const instance = {
    elements: (args: unknown) => {
      calls.push({ method: "elements", args });
      return elements;
    },
    createConfirmationToken: async (args: unknown) => {
      calls.push({ method: "createConfirmationToken", args });
      return { confirmationToken: { id: "ctoken_stripe_1" } };
    },
    // A setup intent's challenge answers the setup intent (its id before `_secret_`), else a payment intent.
    handleNextAction: async (args: { clientSecret: string }) => {
      calls.push({ method: "handleNextAction", args });
      return args.clientSecret.startsWith("seti_")
        ? { setupIntent: { id: args.clientSecret.split("_secret_")[0], status: "succeeded" } }
        : { paymentIntent: { status: "succeeded" } };
    },
  };
  return {
    calls,
    loadStripe: async (key: string) => {
      calls.push({ method: "loadStripe", args: key });
      return instance;
    },
  };
})();
