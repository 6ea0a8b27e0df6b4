import { HOTSPOT_ACTIONS, HOTSPOT_OPACITIES, HOTSPOT_TARGETS, type HotspotRecord } from '../upstream/records.js';
import { builder } from './builder.js';
import { inputRules, rules } from './input-rules.js';
import { restMutation } from './rest-mutation.js';
import { upstreamEnum } from './upstream-enum.js';

const HotspotAction = upstreamEnum('HotspotAction', 'What happens when a viewer clicks a hotspot.', HOTSPOT_ACTIONS, {
  LINK: { value: 'link', description: "Open the hotspot's link." },
});

const HotspotTarget = upstreamEnum('HotspotTarget', "Where a hotspot's link opens.", HOTSPOT_TARGETS, {
  BLANK: { value: '_blank', description: 'In a new window or tab (upstream "_blank").' },
  PARENT: { value: '_parent', description: 'In the parent browsing context (upstream "_parent").' },
});

const HotspotOpacity = upstreamEnum('HotspotOpacity', 'How visible a hotspot is over the video.', HOTSPOT_OPACITIES, {
  INVISIBLE: { value: 'invisible', description: 'Not drawn; still clickable.' },
  TRANSLUCENT: { value: 'translucent', description: 'Drawn see-through.' },
  OPAQUE: { value: 'opaque', description: 'Drawn solid.' },
});

const Hotspot = builder.objectRef<HotspotRecord>('Hotspot').implement({
  description: 'A clickable area shown over a video for a span of its time line.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Identifier of the hotspot within its video.' }),
    name: t.exposeString('name', { description: 'Short label, at most 100 characters.' }),
    showAt: t.string({ description: 'Time-code (HH:MM:SS) at which the hotspot appears.', resolve: (h) => h.show_at }),
    hideAt: t.string({ description: 'Time-code (HH:MM:SS) at which the hotspot disappears.', resolve: (h) => h.hide_at }),
    x: t.exposeFloat('x', { description: 'Horizontal position; 25 to 75 is suggested, no bound is enforced.' }),
    y: t.exposeFloat('y', { description: 'Vertical position; 25 to 75 is suggested, no bound is enforced.' }),
    action: t.field({ type: HotspotAction, description: 'What a click does.', resolve: (h) => h.action }),
    link: t.exposeString('link', { description: 'URL viewers are taken to on click, at most 100 characters.' }),
    target: t.field({ type: HotspotTarget, description: 'Where the link opens.', resolve: (h) => h.target }),
    opacity: t.field({ type: HotspotOpacity, description: 'How visible the hotspot is.', resolve: (h) => h.opacity }),
  }),
});

restMutation('updateHotspot', {
  description: 'Changes a hotspot of a video (PATCH /videos/{videoId}/hotspots/{id}) and returns it in full.',
  input: {
    description: 'Fields of a hotspot to change; omitted fields keep their value.',
    fields: (t) => ({
      videoId: t.id({ required: true, description: 'Id of the video the hotspot belongs to.' }),
      id: t.id({ required: true, description: 'Id of the hotspot.' }),
      name: t.string({ description: 'New label, at most 100 characters.' }),
      showAt: t.string({ description: 'New appearance time-code, HH:MM:SS.' }),
      hideAt: t.string({ description: 'New disappearance time-code, HH:MM:SS.' }),
      x: t.float({ description: 'New horizontal position.' }),
      y: t.float({ description: 'New vertical position.' }),
      action: t.field({ type: HotspotAction, description: 'New click action.' }),
      link: t.string({ description: 'New http(s) link, at most 100 characters.' }),
      target: t.field({ type: HotspotTarget, description: 'New link target.' }),
      opacity: t.field({ type: HotspotOpacity, description: 'New opacity.' }),
    }),
    validate: inputRules(
      {
        videoId: rules.id,
        id: rules.id,
        name: rules.hotspotName.optional(),
        showAt: rules.timeCode.optional(),
        hideAt: rules.timeCode.optional(),
        x: rules.coordinate.optional(),
        y: rules.coordinate.optional(),
        link: rules.hotspotLink.optional(),
      },
      { changes: ['name', 'showAt', 'hideAt', 'x', 'y', 'action', 'link', 'target', 'opacity'] },
    ),
  },
  upstream: { method: 'PATCH', route: '/videos/:videoId/hotspots/:id' },
  payload: { field: 'hotspot', type: Hotspot, description: 'The hotspot after the change.' },
});
