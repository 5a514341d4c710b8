"""Estonian motor vehicle tax (mootorsõidukimaks, in force since 2025) for a plate.

The vehicle behind a plate is made up deterministically from a SHA-256 of the
plate, so the same plate always yields the same car. The tax follows the shape
of the 2025 law for passenger cars (M1): a base component, a progressive CO2
(WLTP) component, a component for full mass over 2000 kg, and an age reduction.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date

PLATE = re.compile(r"^\d{3}[A-Z]{3}$")

BASE_COMPONENT_EUR = 50.0
# (upper bound in g/km inclusive, EUR per gram within this band)
CO2_BANDS: list[tuple[float, float]] = [(117, 3.0), (150, 3.5), (200, 4.0), (float("inf"), 5.0)]
MASS_FREE_KG = 2000
# (upper bound in kg inclusive, EUR per kg within this band)
MASS_BANDS: list[tuple[float, float]] = [(3000, 0.40), (float("inf"), 0.60)]
# From the 5th year after first registration the tax falls 10 % a year, to at most 80 %.
AGE_REDUCTION_START_YEARS = 5
AGE_REDUCTION_STEP = 10
AGE_REDUCTION_MAX = 80


@dataclass(frozen=True)
class CarModel:
    make: str
    model: str
    fuel: str
    co2_range: tuple[int, int]
    mass_range: tuple[int, int]


MODELS = [
    CarModel("Toyota", "Corolla", "hybrid", (98, 118), (1750, 1860)),
    CarModel("Toyota", "RAV4", "hybrid", (121, 135), (2135, 2210)),
    CarModel("Skoda", "Octavia", "petrol", (126, 148), (1850, 1950)),
    CarModel("Volkswagen", "Golf", "petrol", (122, 141), (1770, 1860)),
    CarModel("Volkswagen", "Passat", "diesel", (131, 152), (2050, 2180)),
    CarModel("BMW", "X5", "diesel", (186, 219), (2810, 2960)),
    CarModel("Audi", "A6", "diesel", (142, 168), (2350, 2450)),
    CarModel("Volvo", "XC90", "petrol", (212, 246), (2750, 2990)),
    CarModel("Tesla", "Model 3", "electric", (0, 0), (2140, 2230)),
    CarModel("Nissan", "Leaf", "electric", (0, 0), (1960, 2050)),
    CarModel("Kia", "Ceed", "petrol", (132, 151), (1820, 1890)),
    CarModel("Mercedes-Benz", "E 220 d", "diesel", (143, 162), (2440, 2520)),
    CarModel("Ford", "Focus", "petrol", (127, 139), (1790, 1870)),
    CarModel("Toyota", "Land Cruiser", "diesel", (255, 275), (3010, 3280)),
]


class UnknownPlate(ValueError):
    pass


@dataclass(frozen=True)
class Vehicle:
    reg_nr: str
    make: str
    model: str
    fuel: str
    first_registration: date
    co2_wltp: int
    full_mass_kg: int


def normalise_plate(raw: str) -> str:
    return re.sub(r"[\s-]", "", raw).upper()


def vehicle_for(reg_nr: str) -> Vehicle:
    plate = normalise_plate(reg_nr)
    if not PLATE.match(plate):
        raise UnknownPlate(plate)
    digest = hashlib.sha256(f"vehicle:{plate}".encode()).digest()
    model = MODELS[digest[0] % len(MODELS)]
    low, high = model.co2_range
    co2 = low + digest[1] % (high - low + 1)
    mass_low, mass_high = model.mass_range
    mass = mass_low + int.from_bytes(digest[2:4], "big") % (mass_high - mass_low + 1)
    first_registration = date(2008 + digest[4] % 18, 1 + digest[5] % 12, 1 + digest[6] % 28)
    return Vehicle(plate, model.make, model.model, model.fuel, first_registration, co2, mass)


def _banded(amount: float, bands: list[tuple[float, float]], start: float = 0.0) -> float:
    """Progressive charge: each band's rate applies to the part of `amount` inside it."""
    total, lower = 0.0, start
    for upper, rate in bands:
        if amount <= lower:
            break
        total += (min(amount, upper) - lower) * rate
        lower = upper
    return total


def annual_tax(vehicle: Vehicle, year: int) -> dict[str, object]:
    co2_component = _banded(vehicle.co2_wltp, CO2_BANDS)
    mass_component = _banded(vehicle.full_mass_kg, MASS_BANDS, start=MASS_FREE_KG)
    age = max(0, year - vehicle.first_registration.year)
    reduction = 0
    if age >= AGE_REDUCTION_START_YEARS:
        reduction = min(AGE_REDUCTION_MAX, (age - AGE_REDUCTION_START_YEARS + 1) * AGE_REDUCTION_STEP)
    gross = BASE_COMPONENT_EUR + co2_component + mass_component
    return {
        "baseComponent": round(BASE_COMPONENT_EUR, 2),
        "co2Component": round(co2_component, 2),
        "massComponent": round(mass_component, 2),
        "ageReductionPercent": reduction,
        "annualTax": round(gross * (100 - reduction) / 100, 2),
        "currency": "EUR",
    }


def vehicle_tax(reg_nr: str, year: int) -> dict[str, object]:
    vehicle = vehicle_for(reg_nr)
    return {
        "regNr": vehicle.reg_nr,
        "calculationYear": year,
        "vehicle": {
            "make": vehicle.make,
            "model": vehicle.model,
            "category": "M1",
            "fuelType": vehicle.fuel,
            "firstRegistration": vehicle.first_registration.isoformat(),
            "co2Wltp": vehicle.co2_wltp,
            "fullMassKg": vehicle.full_mass_kg,
        },
        "tax": annual_tax(vehicle, year),
    }
