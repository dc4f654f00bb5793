import ReCAPTCHA from "react-google-recaptcha";
import { type CaptchaWidgetProps, CHALLENGE_FAILED } from "./widget-props";

/** Google reCAPTCHA (the checkbox; loaded only when the server is configured for it). */
export default function RecaptchaWidget({ siteKey, theme, onToken, onError }: CaptchaWidgetProps) {
  return (
    <ReCAPTCHA
      sitekey={siteKey}
      theme={theme}
      onChange={(token) => onToken(token)}
      onExpired={() => onToken(null)}
      onErrored={() => {
        onToken(null);
        onError(CHALLENGE_FAILED);
      }}
    />
  );
}
