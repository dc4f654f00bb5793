import type { PublicConfig } from "@kassa/contracts";
import { Alert, Center, Loader, Stack, useComputedColorScheme } from "@mantine/core";
import { type ComponentType, lazy, type ReactNode, Suspense, useCallback, useMemo, useState } from "react";
import type { ServerError } from "../../lib/auth-client";
import type { CaptchaWidgetProps } from "./widget-props";

/** The header Better Auth's captcha plugin reads the token from. */
export const CAPTCHA_HEADER = "x-captcha-response";

/**
 * Each provider's widget is its own chunk, fetched only when the server names that provider:
 * a server without captcha never loads any of them.
 */
const WIDGETS: Record<string, React.LazyExoticComponent<ComponentType<CaptchaWidgetProps>>> = {
  "cloudflare-turnstile": lazy(() => import("./turnstile-widget")),
  "google-recaptcha": lazy(() => import("./recaptcha-widget")),
  hcaptcha: lazy(() => import("./hcaptcha-widget")),
};

export const CAPTCHA_MISSING: ServerError = {
  status: 400,
  code: "CAPTCHA_MISSING",
  message: "Complete the challenge above the button first.",
};

export interface Captcha {
  /** Whether the server requires a captcha on this form. */
  required: boolean;
  /** The widget to place in the form (null when no captcha is configured). */
  widget: ReactNode;
  /** Headers carrying the token, for the client call's `fetchOptions`; undefined without a token. */
  headers: Record<string, string> | undefined;
  /** Whether the form may be sent (no captcha required, or a token present). */
  ready: boolean;
  /** Tokens are single-use: call after every attempt to get a new challenge. */
  reset: () => void;
}

/**
 * The captcha a form needs when `/api/config` names a provider: a lazily loaded widget, its
 * token, and the `x-captcha-response` header to send it in.
 */
export function useCaptcha(config: PublicConfig["captcha"] | undefined): Captcha {
  const [token, setToken] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const scheme = useComputedColorScheme("light");
  const required = Boolean(config);
  const Widget = config ? WIDGETS[config.provider] : undefined;

  const reset = useCallback(() => {
    setToken(null);
    setError(null);
    setGeneration((g) => g + 1);
  }, []);

  const widget = useMemo(() => {
    if (!config) return null;
    if (!Widget || !config.siteKey) {
      return (
        <Alert color="orange" role="alert">
          This server asks for a captcha but its web settings are incomplete (CAPTCHA_SITE_KEY or the
          provider). Ask its administrator.
        </Alert>
      );
    }
    return (
      <Stack gap="xs" align="center" aria-label="Captcha challenge" role="group">
        <Suspense
          fallback={
            <Center mih={65}>
              <Loader size="sm" aria-label="Loading the challenge" />
            </Center>
          }
        >
          <Widget
            key={`${generation}-${scheme}`}
            siteKey={config.siteKey}
            theme={scheme}
            onToken={setToken}
            onError={setError}
          />
        </Suspense>
        {error && (
          <Alert color="red" role="alert" w="100%">
            {error}
          </Alert>
        )}
      </Stack>
    );
  }, [config, Widget, generation, scheme, error]);

  return {
    required,
    widget,
    headers: token ? { [CAPTCHA_HEADER]: token } : undefined,
    ready: !required || token !== null,
    reset,
  };
}
