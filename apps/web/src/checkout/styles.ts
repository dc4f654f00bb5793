/**
 * Mantine's styles for the components the checkout page uses, not the whole library (about
 * a fifth of `@mantine/core/styles.css`): a buyer on a phone waits for this CSS before the
 * first paint. Add the file of any Mantine component the page starts using.
 */
import "@mantine/core/styles/baseline.css";
import "@mantine/core/styles/default-css-variables.css";
import "@mantine/core/styles/global.css";
import "@mantine/core/styles/UnstyledButton.css";
import "@mantine/core/styles/VisuallyHidden.css";
import "@mantine/core/styles/Alert.css";
import "@mantine/core/styles/Anchor.css";
import "@mantine/core/styles/Avatar.css";
import "@mantine/core/styles/Badge.css";
import "@mantine/core/styles/Button.css";
import "@mantine/core/styles/Center.css";
import "@mantine/core/styles/Checkbox.css";
import "@mantine/core/styles/Code.css";
import "@mantine/core/styles/CheckboxIndicator.css";
import "@mantine/core/styles/CloseButton.css";
import "@mantine/core/styles/Container.css";
import "@mantine/core/styles/Divider.css";
import "@mantine/core/styles/Group.css";
import "@mantine/core/styles/Image.css";
import "@mantine/core/styles/InlineInput.css";
import "@mantine/core/styles/Input.css";
import "@mantine/core/styles/List.css";
import "@mantine/core/styles/Loader.css";
import "@mantine/core/styles/Paper.css";
import "@mantine/core/styles/Radio.css";
import "@mantine/core/styles/RadioCard.css";
import "@mantine/core/styles/RadioIndicator.css";
import "@mantine/core/styles/SimpleGrid.css";
import "@mantine/core/styles/Stack.css";
import "@mantine/core/styles/Text.css";
import "@mantine/core/styles/Title.css";
import "@mantine/core/styles/Typography.css";
