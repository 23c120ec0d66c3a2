"""Reads a FHIR R4 bundle with fhir.resources' R4B models, an implementation VitalBridge's authors did not write.

Usage: fhir_bundle.py BUNDLE.json. Exits 1 with the library's error if the bundle (or any resource in it) is not
valid: a missing required element, an unknown one, a value of the wrong type, a primitive (id, dateTime, uri,
decimal) that does not match FHIR's rules, two choices of value[x]. Otherwise prints, as JSON, one object per
entry with what the library read: the resource type and id, its identifiers, and for an Observation its codes,
effective time and quantities (values as the decimals' text), so that the test can compare them with the store.
"""
import json
import sys

from fhir.resources.R4B.bundle import Bundle


def quantity(value):
    return {"value": str(value.value), "unit": value.unit, "system": value.system, "code": value.code}


def main():
    with open(sys.argv[1], encoding="utf-8") as file:
        text = file.read()
    try:
        bundle = Bundle.model_validate_json(text)
    except Exception as error:  # the library's own message names the element
        print(error, file=sys.stderr)
        sys.exit(1)
    entries = []
    for entry in bundle.entry or []:
        resource = entry.resource
        item = {
            "fullUrl": entry.fullUrl,
            "resourceType": resource.get_resource_type(),
            "id": resource.id,
            "source": resource.meta.source if resource.meta else None,
            "identifiers": [[i.system, i.value] for i in resource.identifier or []],
        }
        if entry.request is not None:
            item["request"] = [entry.request.method, entry.request.url, entry.request.ifNoneExist]
        if item["resourceType"] == "Observation":
            item["codes"] = [coding.code for coding in resource.code.coding]
            item["category"] = [c.code for concept in resource.category for c in concept.coding]
            item["status"] = resource.status
            item["subject"] = resource.subject.reference
            item["device"] = resource.device.reference
            item["effective"] = resource.effectiveDateTime.isoformat()
            if resource.valueQuantity is not None:
                item["value"] = quantity(resource.valueQuantity)
            item["components"] = [
                [component.code.coding[0].code, quantity(component.valueQuantity)]
                for component in resource.component or []
                if component.valueQuantity is not None
            ]
            # what the device said: a value it could not measure, its statuses, its site
            if resource.dataAbsentReason is not None:
                item["absent"] = [c.code for c in resource.dataAbsentReason.coding]
            # a pulse wave: the SampledData of a component, as the library read it
            item["sampled"] = [
                [
                    component.code.coding[0].code,
                    {
                        "origin": quantity(component.valueSampledData.origin),
                        "period": str(component.valueSampledData.period),
                        "lowerLimit": str(component.valueSampledData.lowerLimit),
                        "upperLimit": str(component.valueSampledData.upperLimit),
                        "dimensions": component.valueSampledData.dimensions,
                        "data": component.valueSampledData.data,
                    },
                ]
                for component in resource.component or []
                if component.valueSampledData is not None
            ]
            item["componentsAbsent"] = [
                [component.code.coding[0].code, [c.code for c in component.dataAbsentReason.coding]]
                for component in resource.component or []
                if component.dataAbsentReason is not None
            ]
            item["interpretation"] = [
                [c.system, c.code] for concept in resource.interpretation or [] for c in concept.coding or []
            ]
            item["notes"] = [note.text for note in resource.note or []]
            if resource.bodySite is not None:
                item["bodySite"] = {
                    "codes": [[c.system, c.code] for c in resource.bodySite.coding or []],
                    "text": resource.bodySite.text,
                }
        entries.append(item)
    json.dump({"type": bundle.type, "entries": entries}, sys.stdout)


main()
