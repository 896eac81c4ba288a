// The device controls beside the phone's frame, as a simulator's extended controls: what the
// phone's camera, clipboard, sensor and OS would do, its device information and SDK settings,
// and the faults in force. The frame itself shows only what the authenticator app shows.
import { clear } from "../api.js";
import { deviceSection, sensorSection, settingsSection } from "./device-panel.js";
import { outOfBandSection } from "./oob-input.js";
import { createAutoAnswer } from "./auto-answer.js";

/**
 * `parts`: {camera, sections}: the elements the camera and the device's sections go in.
 * `view`: the app's context (state, phonePath, showStartedFlow, receivePush, toast) and
 * `render(force)`, which draws the phone afresh after a control changed it.
 * Returns render(force): redraws the sections when the phone they show changed.
 */
export function createDeviceControls({ camera, sections }, view) {
  const oob = outOfBandSection(view);
  camera.append(oob.node);
  const autoAnswer = createAutoAnswer(view);
  let shownKey = null;

  return function render(force = false) {
    const phone = view.state.phone;
    if (!phone) return;
    oob.sync(phone);
    const key = JSON.stringify([phone.name, phone.fcmToken, phone.fid, phone.pushNotifications, phone.settings, phone.biometrics, phone.hasPin]);
    if (!force && key === shownKey) return;
    shownKey = key;
    clear(sections);
    sections.append(sensorSection(phone, view), deviceSection(phone, view), autoAnswer.node, settingsSection(phone, view));
    autoAnswer.sync().catch((err) => view.toast.show(err.code, err.message));
  };
}
