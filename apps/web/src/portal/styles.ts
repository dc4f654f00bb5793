/**
 * Mantine's styles for the components the portal uses (the checkout's set and a few more),
 * not the whole library. Add the file of any Mantine component the portal starts using.
 */
import "../checkout/styles";
import "@mantine/core/styles/ActionIcon.css";
import "@mantine/core/styles/Code.css";
import "@mantine/core/styles/Combobox.css";
import "@mantine/core/styles/Modal.css";
import "@mantine/core/styles/ModalBase.css";
import "@mantine/core/styles/Overlay.css";
import "@mantine/core/styles/Popover.css";
import "@mantine/core/styles/ScrollArea.css";
import "@mantine/core/styles/Table.css";
import "@mantine/core/styles/Tabs.css";
