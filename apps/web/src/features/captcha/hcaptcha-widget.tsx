import HCaptcha from "@hcaptcha/react-hcaptcha";
import { type CaptchaWidgetProps, CHALLENGE_FAILED } from "./widget-props";

/** hCaptcha (loaded only when the server is configured for it). */
export default function HCaptchaWidget({ siteKey, theme, onToken, onError }: CaptchaWidgetProps) {
  return (
    <HCaptcha
      sitekey={siteKey}
      theme={theme}
      onVerify={(token) => onToken(token)}
      onExpire={() => onToken(null)}
      onError={() => {
        onToken(null);
        onError(CHALLENGE_FAILED);
      }}
    />
  );
}
