import { Turnstile } from "@marsidev/react-turnstile";
import { type CaptchaWidgetProps, CHALLENGE_FAILED } from "./widget-props";

/** Cloudflare Turnstile (loaded only when the server is configured for it). */
export default function TurnstileWidget({ siteKey, theme, onToken, onError }: CaptchaWidgetProps) {
  return (
    <Turnstile
      siteKey={siteKey}
      options={{ theme }}
      onSuccess={(token) => onToken(token)}
      onExpire={() => onToken(null)}
      onError={() => {
        onToken(null);
        onError(CHALLENGE_FAILED);
      }}
    />
  );
}
